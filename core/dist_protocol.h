/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Variables through which the SPANK plugin hands a wrapped task to the shim.
 * The shim clears them before it execs the user's program. */
#ifndef DIST_PROTOCOL_H
#define DIST_PROTOCOL_H

/* The options' variables are DIST_OPT_ENV(ID) (dist_options.h); these
 * carry the site's plugstack settings. */
#define DIST_SHIM_ENV_PORT_RANGE "DIST_SHIM_PORT_RANGE"
#define DIST_SHIM_ENV_TIMEOUT    "DIST_SHIM_TIMEOUT"
/* Slurm 22.05 route only: the task's own argv[0], which the shim replaced. */
#define DIST_SHIM_ENV_ARGV0 "DIST_SHIM_ARGV0"
/* The step's private directory on this node, made by the plugin as the
 * user ("PID:PATH", PID the task's own: shim/node/stepdir.h). */
#define DIST_SHIM_ENV_STEPDIR "DIST_SHIM_STEPDIR"
/* "cpu" when the user asked Slurm itself to bind CPUs (--cpu-bind): the
 * shim leaves each task's CPUs as Slurm bound them (spank/userbind.h). */
#define DIST_SHIM_ENV_USER_BIND "DIST_SHIM_USER_BIND"
/* The launcher relay's key, drawn by srun's plugin for each step and sent
 * to its tasks only (a SLURM_ name: srun keeps those under --export=NONE). */
#define DIST_SHIM_ENV_RELAY_KEY "SLURM_DIST_RELAY_KEY"

/* Precedes the plugin's version line (DIST_VERSION_LINE) in its file, where
 * dist-shim --doctor looks for it: the shim cannot dlopen the plugin, which
 * binds at load time to functions only Slurm's programs have. */
#define DIST_BUILD_MARKER "slurm-dist build: "

/* The step's node order and addresses, from srun's plugin for tasks
 * without PMI (core/dist_stepnodes.h; a SLURM_ name: srun keeps those under
 * --export=NONE). */
#define DIST_SHIM_ENV_STEP_NODES "SLURM_DIST_STEP_NODES"

/* Every one of them but the options' (which dist_opts lists), for the shim
 * to clear. */
#define DIST_SHIM_ENV_OTHERS                                                                       \
	{                                                                                          \
		DIST_SHIM_ENV_PORT_RANGE, DIST_SHIM_ENV_TIMEOUT, DIST_SHIM_ENV_ARGV0,              \
		        DIST_SHIM_ENV_STEPDIR, DIST_SHIM_ENV_USER_BIND, DIST_SHIM_ENV_RELAY_KEY    \
	}

#endif
