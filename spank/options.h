/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's options: --dist-mode, --dist-compat and --dist-launcher, registered for srun,
 * sbatch and salloc, with an explicit "not given" state. */
#ifndef SPANK_DIST_OPTIONS_H
#define SPANK_DIST_OPTIONS_H

#include <slurm/spank.h>
#include <stdbool.h>

#include "dist_err.h"

struct dist_options {
	char mode[64];
	bool mode_given;
	char compat[256];
	bool compat_given;
	bool launcher;    /* --dist-launcher */
	char ps[16];      /* --dist-ps=N, "" when not given */
	bool chief;       /* --dist-chief */
	bool evaluator;   /* --dist-evaluator */
	bool npu_isolate; /* --dist-npu-isolate */
	char bind[16];    /* --dist-bind=POLICY, "" when not given */
	char check[16];   /* --dist-check=CHECK, "" when not given */
	bool explain;     /* --dist-explain */
};

extern struct dist_options dist_options;

int dist_options_register(spank_t sp);

/* Checks the values together (for slurmstepd, where the callbacks only
 * store them); 0 when valid. */
int dist_options_validate(struct dist_err *err);

/* True when the step is to be wrapped: a mode other than "none" was given. */
bool dist_options_active(void);

#endif
