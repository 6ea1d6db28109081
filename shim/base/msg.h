/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages to the user: one line on stderr, prefixed "dist-shim: ". An
 * error names the host and rank once they are known; a warning and a note
 * do not (their text names what they are about). */
#ifndef SHIM_MSG_H
#define SHIM_MSG_H

#include <stdint.h>

void msg_set_rank(uint32_t rank);
/* "dist-shim: error: HOST rank N: ..." ("HOST: ..." before the rank is known) */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dist-shim: warning: ...": the task goes on. */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "dist-shim: ...": what --explain asked for. */
void msg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
