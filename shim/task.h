/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One task of the step, from the shim's start to the program's exec: what
 * it was asked (the command line), what it is to become (the plan), and
 * what the wire-up gave it. main() creates it and hands it, explicitly,
 * down to the exec; none of it is static. */
#ifndef SHIM_TASK_H
#define SHIM_TASK_H

#include "cli.h"
#include "dist_err.h"
#include "dist_world.h"
#include "node/stepdir.h"
#include "plan.h"
#include "relay/relay.h"

#define EXIT_USAGE  2
#define EXIT_WIREUP 1

struct task {
	struct cli cli;
	struct plan plan;
	char *path;  /* the program, found before the wire-up */
	char **argv; /* its arguments, then those the profiles add */
	/* This task's own reason not to start (failure_rc 0: none), which the
	 * other tasks learn through the exchange. */
	int failure_rc;
	struct dist_err failure;
	struct stepdir dir;        /* the step's private directory; fd -1 when not open */
	struct relay_params relay; /* the launcher form's, set up by the exchange if any */
	struct dist_world world;   /* from the wire-up; its step_dir is dir's path */
	char **node_names;         /* the world's node_names, owned (up to the exec) */
};

#define TASK_INIT                                                                                  \
	{                                                                                          \
		.dir = {.fd = -1}, .relay = RELAY_PARAMS_INIT                                      \
	}

/* prepare.c: wires up, exports the plan's contract, binds and places the
 * mode's files; 0, or the exit code with the reason said. */
int task_prepare(struct task *t);

/* task.c: from the plan to the program, through task_prepare when there is
 * a mode; returns only when the program cannot run, with the exit code. */
int task_run(struct task *t);

#endif
