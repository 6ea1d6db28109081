/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dist_buf_init(struct dist_buf *b)
{
	*b = (struct dist_buf)DIST_BUF_INIT;
}

void dist_buf_free(struct dist_buf *b)
{
	free(b->data);
	dist_buf_init(b);
}

void dist_buf_reset(struct dist_buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->data)
		b->data[0] = '\0';
}

/* Room for EXTRA more bytes and the NUL; doubling keeps appends O(1) amortized. */
static int reserve(struct dist_buf *b, size_t extra)
{
	size_t need, cap;
	char *data;

	if (b->failed)
		return -1;
	if (extra > (size_t)-1 - b->len - 1)
		goto fail;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > (size_t)-1 / 2 ? need : cap * 2;
	data = realloc(b->data, cap);
	if (!data)
		goto fail;
	b->data = data;
	b->cap = cap;
	return 0;
fail:
	b->failed = true;
	return -1;
}

int dist_buf_reserve(struct dist_buf *b, size_t extra)
{
	return reserve(b, extra);
}

int dist_buf_appendn(struct dist_buf *b, const char *text, size_t len)
{
	if (reserve(b, len))
		return -1;
	memcpy(b->data + b->len, text, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int dist_buf_append(struct dist_buf *b, const char *text)
{
	return dist_buf_appendn(b, text, strlen(text));
}

int dist_buf_vappendf(struct dist_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	int n;

	if (b->failed)
		return -1;
	va_copy(again, ap);
	n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
	if (n >= 0 && (size_t)n >= room) {
		/* Did not fit: grow to the exact need and format again. */
		if (reserve(b, (size_t)n) == 0)
			n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, again);
		else
			n = -1;
	}
	va_end(again);
	if (n < 0) {
		b->failed = true;
		if (b->data)
			b->data[b->len] = '\0';
		return -1;
	}
	b->len += (size_t)n;
	return 0;
}

int dist_buf_appendf(struct dist_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = dist_buf_vappendf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *dist_buf_str(const struct dist_buf *b)
{
	return b->data ? b->data : "";
}

char *dist_buf_take(struct dist_buf *b)
{
	char *text;

	if (b->failed) {
		dist_buf_free(b);
		return NULL;
	}
	text = b->data ? b->data : strdup("");
	dist_buf_init(b);
	return text;
}
