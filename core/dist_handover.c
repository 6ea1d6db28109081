/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_handover.h"

#include <limits.h>
#include <stdio.h>

int dist_handover_encode(long pid, const char *value, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%ld:%s", pid, value);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

const char *dist_handover_decode(const char *text, long pid)
{
	const char *p = text;
	long v = 0;

	if (!p || *p < '1' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (LONG_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (*p - '0');
	}
	if (*p != ':' || p[1] == '\0' || v != pid)
		return NULL;
	return p + 1;
}
