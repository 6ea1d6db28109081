/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "base/carried.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_carry.h"
#include "dist_handover.h"

static char dir[32];
static char *user_names; /* NULL: not handed over, nothing counts as imported */

static void close_on_exec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	if (flags >= 0)
		fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

static void adopt_user_names(void)
{
	const char *names = dist_handover_decode(getenv(DIST_SHIM_ENV_USER_NAMES), (long)getpid());

	if (names)
		user_names = strdup(names);
}

void carried_adopt(void)
{
	const char *value = getenv(DIST_SHIM_ENV_CARRIED);
	struct dist_carried c;

	if (!value)
		return;
	if (dist_carry_parse(value, (long)getpid(), &c) == 0) {
		close_on_exec(c.loader);
		close_on_exec(c.dir);
		for (size_t i = 0; i < c.nlibs; i++)
			close_on_exec(c.libs[i]);
		snprintf(dir, sizeof(dir), "/proc/self/fd/%d", c.dir);
		adopt_user_names();
	}
	unsetenv(DIST_SHIM_ENV_CARRIED);
	unsetenv(DIST_SHIM_ENV_USER_NAMES);
}

bool carried_active(void)
{
	return dir[0] != '\0';
}

bool carried_imported(const char *name)
{
	return user_names && getenv(name) && !dist_carry_name_listed(user_names, name);
}

const char *carried_user_getenv(const char *name)
{
	return carried_imported(name) ? NULL : getenv(name);
}

int carried_setenv_default(const char *name, const char *value)
{
	return setenv(name, value, carried_imported(name));
}

const char *carried_dir(void)
{
	return dir;
}
