/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the task is to become: a mode's contract and the profiles on top,
 * from the command line; then the contract exported and the program's
 * arguments completed. */
#ifndef SHIM_PLAN_H
#define SHIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "dist_err.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "dist_world.h"

struct plan {
	const struct dist_mode *mode; /* NULL for "none" */
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	size_t nprofiles;
	struct dist_roles roles; /* --ps, --chief, --evaluator */
	char **extra_args;       /* appended to the program's arguments by profiles */
	size_t nextra;
};

/* 0, or the exit code of a usage error (said). */
int plan_make(const struct cli *cli, struct plan *plan);

/* Whether the mode or a profile needs every node's record. */
bool plan_needs_nodes(const struct plan *plan);

/* Exports the mode's contract with the profiles' variables over it, and
 * collects the arguments profiles append to the program's. */
int plan_export_contract(struct plan *plan, const struct dist_world *w, struct dist_err *err);

/* The program's arguments CMD followed by those the profiles add (CMD
 * itself when they add none); NULL when out of memory. */
char **plan_full_argv(char **cmd, const struct plan *plan);

#endif
