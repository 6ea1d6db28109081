/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dist-shim-enter: what a task execs when the plugin carried the shim into
 * a container another plugin entered (core/dist_carry.h). Linked statically:
 * it runs inside the image, where no library of the node's is. It starts
 * the node's loader on the node's shim, with ARGV[1..] after it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_carry.h"

int main(int argc, char **argv)
{
	const char *value = getenv(DIST_SHIM_ENV_CARRIED);
	struct dist_carried c;
	char loader[32];
	char **line;

	if (!value || dist_carry_parse(value, (long)getpid(), &c)) {
		fputs("dist-shim-enter: error: no shim carried for this process "
		      "(" DIST_SHIM_ENV_CARRIED
		      "): only the slurm-dist plugin starts this; run dist-shim instead\n",
		      stderr);
		return 127;
	}
	snprintf(loader, sizeof(loader), "/proc/self/fd/%d", c.loader);
	/* The kernel holds the loader once the exec starts: no copy for the shim. */
	fcntl(c.loader, F_SETFD, FD_CLOEXEC);
	line = dist_carry_loader_argv(&c, argc, argv);
	if (line)
		execv(loader, line);
	fprintf(stderr,
	        "dist-shim-enter: error: cannot start the node's shim through %s: %s; the "
	        "container needs /proc mounted\n",
	        loader, line ? strerror(errno) : "out of memory");
	return 127;
}
