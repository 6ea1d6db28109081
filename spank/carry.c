/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "carry.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dist_buf.h"
#include "dist_carry.h"
#include "dist_env.h"

/* Where the shim's libraries were found at build time, ':'-separated. */
#ifndef DIST_SHIM_LIBDIRS
#error "DIST_SHIM_LIBDIRS is set by spank/CMakeLists.txt"
#endif

static struct dist_carried carried = {.loader = -1, .dir = -1};
static int enter = -1;
static struct dist_err open_err;
static bool opened;
/* "PID:NAME NAME..." of the environment before any task_init. */
static struct dist_buf user_names = DIST_BUF_INIT;

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void carry_close(void)
{
	close_fd(&carried.loader);
	close_fd(&carried.dir);
	close_fd(&enter);
	for (size_t i = 0; i < carried.nlibs; i++)
		close_fd(&carried.libs[i]);
	carried.nlibs = 0;
	opened = false;
	dist_buf_free(&user_names);
}

/* The names of the task's environment now, before any plugin's task_init. */
static void note_user_names(spank_t sp)
{
	char **env = NULL;

	dist_buf_appendf(&user_names, "%ld:", (long)getpid());
	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS || !env)
		return;
	for (size_t i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');

		if (eq && eq != env[i])
			dist_buf_appendf(&user_names, "%s%.*s", i ? " " : "", (int)(eq - env[i]),
			                 env[i]);
	}
}

/* The loader SHIM was linked for, open for the exec (kept across the
 * task's first exec, to dist-shim-enter's). */
static int open_loader(int dir, const char *name)
{
	char interp[PATH_MAX];
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	int rc = fd >= 0 ? dist_elf_interp(fd, interp, sizeof(interp)) : -1;

	if (fd >= 0)
		close(fd);
	if (rc)
		return dist_err_set(&open_err, "cannot read the dynamic loader of %s", name);
	carried.loader = open(interp, O_PATH);
	if (carried.loader < 0)
		return dist_err_set(&open_err, "cannot open the loader %s: %s", interp,
		                    strerror(errno));
	return 0;
}

/* dist-shim-enter (DIST_SHIM_ENTER_PLACES). Only the task's own exec needs
 * it, which is over before the plugin's exec hands on: close-on-exec. */
static int open_enter(int dir)
{
	const char *const places[] = DIST_SHIM_ENTER_PLACES;

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]) && enter < 0; i++)
		enter = openat(dir, places[i], O_PATH | O_CLOEXEC);
	if (enter < 0)
		return dist_err_set(&open_err, "%s is not installed beside the shim",
		                    DIST_SHIM_ENTER_NAME);
	return 0;
}

static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* Each build-time library directory that exists here, once. */
static void open_libs(void)
{
	char dirs[] = DIST_SHIM_LIBDIRS;
	char *save = NULL;

	for (char *d = strtok_r(dirs, ":", &save); d && carried.nlibs < DIST_CARRY_MAX_LIBS;
	     d = strtok_r(NULL, ":", &save)) {
		int fd = open(d, O_PATH | O_DIRECTORY);
		bool seen = false;

		if (fd < 0)
			continue;
		for (size_t i = 0; i < carried.nlibs && !seen; i++)
			seen = same_file(fd, carried.libs[i]);
		if (seen)
			close(fd);
		else
			carried.libs[carried.nlibs++] = fd;
	}
}

/* Called as root: the opens are made with the job's user's effective ids,
 * as the exec that uses them will be, so nothing is opened as root. */
static int switch_ids(spank_t sp, bool to_user)
{
	uid_t uid = 0;
	gid_t gid = 0;

	if (!to_user)
		return seteuid(0) || setegid(0) ? -1 : 0;
	if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS)
		return -1;
	return setegid(gid) || seteuid(uid) ? -1 : 0;
}

static void open_all(const char *shim)
{
	char copy[PATH_MAX], name[PATH_MAX];
	const char *base;

	snprintf(copy, sizeof(copy), "%s", shim);
	snprintf(name, sizeof(name), "%s", shim);
	base = basename(name);
	if (strlen(base) >= sizeof(carried.name))
		return (void)dist_err_set(&open_err, "the shim's file name is too long: %s", base);
	snprintf(carried.name, sizeof(carried.name), "%s", base);
	carried.dir = open(dirname(copy), O_PATH | O_DIRECTORY);
	if (carried.dir < 0) {
		dist_err_set(&open_err, "cannot open the shim's directory: %s", strerror(errno));
		return;
	}
	if (open_loader(carried.dir, carried.name) || open_enter(carried.dir)) {
		carry_close();
		return;
	}
	open_libs();
	opened = true;
}

void carry_open(spank_t sp, const char *shim)
{
	carry_close();
	if (geteuid() != 0) {
		open_all(shim);
	} else if (switch_ids(sp, true) == 0) {
		open_all(shim);
		if (switch_ids(sp, false))
			slurm_error("dist: cannot switch back to root after opening the shim: %m");
	} else {
		dist_err_set(&open_err, "cannot switch to the job's user to open the shim");
		switch_ids(sp, false);
	}
	if (opened)
		note_user_names(sp);
}

bool carry_needed(const char *shim, bool always)
{
	struct stat here, carried_shim;

	if (always)
		return true;
	if (stat(shim, &here) != 0)
		return true;
	/* Not opened: the shim here is all there is to run. */
	if (carried.dir < 0)
		return false;
	return fstatat(carried.dir, carried.name, &carried_shim, 0) != 0 ||
	       here.st_dev != carried_shim.st_dev || here.st_ino != carried_shim.st_ino;
}

const char *carry_wrap_path(spank_t sp, struct dist_err *err)
{
	static char path[32];
	char value[256];

	if (!opened) {
		*err = open_err;
		if (!err->msg[0])
			dist_err_set(err, "the shim was not opened before the task started");
		return NULL;
	}
	if (dist_carry_format(&carried, (long)getpid(), value, sizeof(value)) ||
	    spank_setenv(sp, DIST_SHIM_ENV_CARRIED, value, 1) != ESPANK_SUCCESS) {
		dist_err_set(err, "cannot hand the carried shim to the task");
		return NULL;
	}
	/* Over Linux's limit for one variable (a huge environment), the names
	 * are left out: the shim then keeps every variable it finds, as a
	 * shim that was not carried does. */
	if (!user_names.failed &&
	    user_names.len < DIST_EXEC_STRING_MAX - sizeof(DIST_SHIM_ENV_USER_NAMES) - 1 &&
	    spank_setenv(sp, DIST_SHIM_ENV_USER_NAMES, dist_buf_str(&user_names), 1) !=
	            ESPANK_SUCCESS) {
		dist_err_set(err, "cannot hand the user's variable names to the task");
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", enter);
	return path;
}
