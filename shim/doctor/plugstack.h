/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The spank_dist line of this node's plugstack.conf, for dist-shim --doctor:
 * found by reading the file (and the files its include lines name) as
 * slurmstepd would. */
#ifndef SHIM_DOCTOR_PLUGSTACK_H
#define SHIM_DOCTOR_PLUGSTACK_H

#include <stdbool.h>

#include "dist_err.h"

struct plugstack_line {
	char *file;    /* the plugstack file that holds the line */
	int lineno;    /* its line number there, from 1 */
	char *text;    /* the line as written, without its comment */
	bool optional; /* "optional", not "required": Slurm ignores the plugin's errors */
	char *path;    /* the plugin as Slurm resolves it (PluginDir for a bare name) */
	char **args;   /* its key=value arguments */
	int nargs;
	/* The first plugin that moves tasks into a container (pyxis and its
	 * kind, by name) listed before and after it, or NULL. */
	char *container_before;
	char *container_after;
};

/* Looks for spank_dist.so in CONF and what it includes (the first line that
 * loads it; the whole stack is read, for the container plugins around it).
 * Returns 1 and fills
 * LINE, 0 when no line loads it, -1 with ERR set when CONF cannot be read.
 * PLUGINDIR is Slurm's PluginDir (colon-separated), for a relative path. */
int plugstack_find(const char *conf, const char *plugindir, struct plugstack_line *line,
                   struct dist_err *err);
void plugstack_line_free(struct plugstack_line *line);

#endif
