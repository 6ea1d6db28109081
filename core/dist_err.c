/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_err.h"

#include <stdio.h>

int dist_err_set(struct dist_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
