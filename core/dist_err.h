/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One error message, filled in where a failure is detected and printed once
 * by whoever decides the process must stop. */
#ifndef DIST_ERR_H
#define DIST_ERR_H

#include <stdarg.h>

struct dist_err {
	char msg[512];
};

/* Formats the message; always returns -1 so callers can `return dist_err_set(...)`. */
int dist_err_set(struct dist_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
