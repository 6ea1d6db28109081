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

/* One line, "dist-shim: " KIND TEXT, in one write. */
static void put_line(const char *kind, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "dist-shim: %s%s\n", kind, line);
}

void msg_error(const char *fmt, ...)
{
	char host[256] = "?", kind[320];
	va_list ap;

	gethostname(host, sizeof(host) - 1);
	if (rank_known)
		snprintf(kind, sizeof(kind), "error: %s rank %u: ", host, my_rank);
	else
		snprintf(kind, sizeof(kind), "error: %s: ", host);
	va_start(ap, fmt);
	put_line(kind, fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_line("warning: ", fmt, ap);
	va_end(ap);
}

void msg_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_line("", fmt, ap);
	va_end(ap);
}
