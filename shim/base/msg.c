/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/msg.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

static bool rank_known;
static uint32_t my_rank;

void msg_set_rank(uint32_t rank)
{
	rank_known = true;
	my_rank = rank;
}

void msg_error(const char *fmt, ...)
{
	char host[256] = "?", line[1024];
	va_list ap;

	gethostname(host, sizeof(host) - 1);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (rank_known)
		fprintf(stderr, "dist-shim: error: %s rank %u: %s\n", host, my_rank, line);
	else
		fprintf(stderr, "dist-shim: error: %s: %s\n", host, line);
}
