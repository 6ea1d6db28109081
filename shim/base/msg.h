/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages to the user: one line on stderr, prefixed "dist-shim: ", naming
 * the host and rank once they are known. */
#ifndef SHIM_MSG_H
#define SHIM_MSG_H

#include <stdint.h>

void msg_set_rank(uint32_t rank);
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
