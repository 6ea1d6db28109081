/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growing string buffer: the one way core builds text whose length grows
 * with the job (host lists, hostfiles, rank tables, formatted values), so
 * that nothing is cut off at a fixed size. Always NUL-terminated once
 * anything was appended. An allocation failure is sticky: later appends do
 * nothing and return -1, so a caller may append many times and check once. */
#ifndef DIST_BUF_H
#define DIST_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct dist_buf {
	char *data; /* NULL until the first append */
	size_t len; /* bytes before the NUL */
	size_t cap; /* bytes allocated */
	bool failed;
};

#define DIST_BUF_INIT                                                                              \
	{                                                                                          \
		NULL, 0, 0, false                                                                  \
	}

void dist_buf_init(struct dist_buf *b);
void dist_buf_free(struct dist_buf *b);

/* Empties B, keeping its memory (and clearing a failure). */
void dist_buf_reset(struct dist_buf *b);

/* Makes room for EXTRA more bytes at once, where the final size is known
 * roughly in advance (saves the copies of growing a large text). */
int dist_buf_reserve(struct dist_buf *b, size_t extra);

int dist_buf_append(struct dist_buf *b, const char *text);
int dist_buf_appendn(struct dist_buf *b, const char *text, size_t len);
int dist_buf_appendf(struct dist_buf *b, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
int dist_buf_vappendf(struct dist_buf *b, const char *fmt, va_list ap)
        __attribute__((format(printf, 2, 0)));

/* The text so far ("" when nothing was appended). */
const char *dist_buf_str(const struct dist_buf *b);

/* Hands the text over (malloc'd, the caller frees it) and empties B; NULL
 * if an append failed (B is then freed). */
char *dist_buf_take(struct dist_buf *b);

#endif
