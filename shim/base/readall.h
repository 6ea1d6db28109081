/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One way the shim reads a whole file it has opened: the step directory's
 * plan, torch's error file, a plugin file for its build line. */
#ifndef SHIM_READALL_H
#define SHIM_READALL_H

#include <stddef.h>

/* FD's contents from where it stands, NUL-terminated (malloc'd), at most MAX
 * bytes (0: no bound; what lies beyond is left unread), length in *LEN when
 * LEN is not NULL. NULL on a read error or without memory (errno says). */
char *readall_fd(int fd, size_t max, size_t *len);

#endif
