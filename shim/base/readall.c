/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/readall.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

char *readall_fd(int fd, size_t max, size_t *len)
{
	size_t used = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n = 1;

	while (buf && (max == 0 || used < max) && (n = read(fd, buf + used, cap - 1 - used)) > 0) {
		used += (size_t)n;
		if (used == cap - 1) {
			char *grown = realloc(buf, cap * 2);

			if (!grown) {
				free(buf);
				return NULL;
			}
			buf = grown;
			cap *= 2;
		}
	}
	if (!buf || n < 0) {
		int saved = errno;

		free(buf);
		errno = saved;
		return NULL;
	}
	if (max && used > max)
		used = max;
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}
