/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_carry.h"

#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_handover.h"

#define FD_PATH      "/proc/self/fd/"
#define NATIVE_CLASS (__ELF_NATIVE_CLASS == 64 ? ELFCLASS64 : ELFCLASS32)

int dist_carry_format(const struct dist_carried *c, long pid, char *buf, size_t len)
{
	char fields[64 + DIST_CARRY_NAME_MAX + DIST_CARRY_MAX_LIBS * 12];
	size_t used;

	if (!c->name[0] || strchr(c->name, ' ') || strchr(c->name, '/') ||
	    c->nlibs > DIST_CARRY_MAX_LIBS)
		return -1;
	used = (size_t)snprintf(fields, sizeof(fields), "%d %d %s", c->loader, c->dir, c->name);
	for (size_t i = 0; i < c->nlibs && used < sizeof(fields); i++)
		used += (size_t)snprintf(fields + used, sizeof(fields) - used, " %d", c->libs[i]);
	if (used >= sizeof(fields))
		return -1;
	return dist_handover_encode(pid, fields, buf, len);
}

/* A descriptor number at *P, advanced past it and one space or the end. */
static int parse_fd(const char **p, int *fd)
{
	char *end;
	long v = strtol(*p, &end, 10);

	if (end == *p || v < 0 || v > INT_MAX || (*end != ' ' && *end != '\0'))
		return -1;
	*fd = (int)v;
	*p = *end ? end + 1 : end;
	return 0;
}

int dist_carry_parse(const char *text, long pid, struct dist_carried *c)
{
	const char *p = dist_handover_decode(text, pid);
	const char *space;
	size_t n;

	memset(c, 0, sizeof(*c));
	if (!p || parse_fd(&p, &c->loader) || parse_fd(&p, &c->dir))
		return -1;
	space = strchr(p, ' ');
	n = space ? (size_t)(space - p) : strlen(p);
	if (n == 0 || n >= sizeof(c->name) || memchr(p, '/', n))
		return -1;
	memcpy(c->name, p, n);
	p += n;
	if (*p == ' ')
		p++;
	while (*p) {
		if (c->nlibs == DIST_CARRY_MAX_LIBS || parse_fd(&p, &c->libs[c->nlibs]))
			return -1;
		c->nlibs++;
	}
	return 0;
}

/* ld.so --argv0 NAME --library-path DIRS /proc/self/fd/DIR/NAME ARGS...:
 * the node's libraries first, before the image's cache and directories;
 * the shim's own name as its argv[0], for its messages. */
char **dist_carry_loader_argv(const struct dist_carried *c, int argc, char *const argv[])
{
	enum { FIXED = 6 };
	size_t nargs = FIXED + (argc > 1 ? (size_t)argc - 1 : 0) + 1;
	size_t paths = (c->nlibs + 2) * (sizeof(FD_PATH) + 12) + sizeof(c->name);
	char **out = malloc(nargs * sizeof(char *) + 2 * paths);
	char *libpath, *program;
	size_t used = 0, k = 0;

	if (!out)
		return NULL;
	libpath = (char *)(out + nargs);
	program = libpath + paths;
	for (size_t i = 0; i < c->nlibs; i++)
		used += (size_t)snprintf(libpath + used, paths - used, "%s" FD_PATH "%d",
		                         i ? ":" : "", c->libs[i]);
	snprintf(program, paths, FD_PATH "%d/%s", c->dir, c->name);
	out[k++] = (char *)c->name;
	out[k++] = "--argv0";
	out[k++] = (char *)c->name;
	out[k++] = "--library-path";
	out[k++] = libpath;
	out[k++] = program;
	for (int i = 1; i < argc; i++)
		out[k++] = argv[i];
	out[k] = NULL;
	return out;
}

bool dist_carry_name_listed(const char *names, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = names; p && *p;) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && memcmp(p, name, n) == 0)
			return true;
		p = end ? end + 1 : p + len;
	}
	return false;
}

int dist_elf_interp(int fd, char *buf, size_t len)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != NATIVE_CLASS ||
	    eh.e_phentsize != sizeof(ph))
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		off_t at = (off_t)eh.e_phoff + (off_t)i * (off_t)sizeof(ph);

		if (pread(fd, &ph, sizeof(ph), at) != (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > len ||
		    pread(fd, buf, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz ||
		    buf[ph.p_filesz - 1] != '\0' || buf[0] != '/')
			return -1;
		return 0;
	}
	return -1;
}
