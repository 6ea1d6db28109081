/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shim carried into a container that another SPANK plugin makes the
 * task enter after ours ran (pyxis: docs/containers.md, "A container entered
 * by a plugin"). The plugin opens, while the task still sees the node's
 * files, the shim's directory, the dynamic loader it was linked for and the
 * directories of its libraries; the task then execs dist-shim-enter (static,
 * through its descriptor), which starts the node's loader on the node's shim
 * with the node's libraries, all through /proc/self/fd: nothing is looked up
 * in the image. The descriptors travel in DIST_SHIM_ENV_CARRIED. */
#ifndef DIST_CARRY_H
#define DIST_CARRY_H

#include <stdbool.h>
#include <stddef.h>

#define DIST_SHIM_ENV_CARRIED "DIST_SHIM_CARRIED"
/* "PID:NAME NAME...": the names in the task's environment before any
 * plugin's task_init, i.e. what srun passed on (the user's). A carried
 * shim's contract replaces a variable that is not among them: one a
 * container plugin imported (pyxis, enroot's hooks). */
#define DIST_SHIM_ENV_USER_NAMES "DIST_SHIM_USER_NAMES"
#define DIST_SHIM_ENTER_NAME     "dist-shim-enter"
/* Where dist-shim-enter is, from the shim's directory: the install's module
 * directory (DIST_SHIM_MODULE_RELDIR, from the build), else beside the shim
 * (a build tree, a test cluster's copy). For the plugin and the doctor. */
#define DIST_SHIM_ENTER_PLACES                                                                     \
	{                                                                                          \
		DIST_SHIM_MODULE_RELDIR "/" DIST_SHIM_ENTER_NAME, DIST_SHIM_ENTER_NAME             \
	}
/* Library directories: the few the build found the shim's libraries in. */
#define DIST_CARRY_MAX_LIBS 8
#define DIST_CARRY_NAME_MAX 64

struct dist_carried {
	int loader;                     /* the shim's PT_INTERP */
	int dir;                        /* the shim's directory (its modules too) */
	char name[DIST_CARRY_NAME_MAX]; /* the shim's file name in it */
	int libs[DIST_CARRY_MAX_LIBS];  /* library directories */
	size_t nlibs;
};

/* "PID:LOADER DIR NAME LIB..." tied to PID (dist_handover_encode). */
int dist_carry_format(const struct dist_carried *c, long pid, char *buf, size_t len);
/* 0 and *C filled when TEXT is a value made for PID; -1 otherwise. */
int dist_carry_parse(const char *text, long pid, struct dist_carried *c);

/* The loader's command line that runs the carried shim with ARGV[1..ARGC)
 * after it: the array and its strings in one allocation (free() it), or
 * NULL when out of memory. */
char **dist_carry_loader_argv(const struct dist_carried *c, int argc, char *const argv[]);

/* Whether NAME is one of NAMES ("NAME NAME...", as in
 * DIST_SHIM_ENV_USER_NAMES without its "PID:"). */
bool dist_carry_name_listed(const char *names, const char *name);

/* The interpreter (PT_INTERP) named by the ELF executable open on FD, into
 * BUF: 0, or -1 when FD is not a dynamically linked ELF of this machine's
 * class or the name does not fit. */
int dist_elf_interp(int fd, char *buf, size_t len);

#endif
