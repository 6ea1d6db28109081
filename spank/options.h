/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's options (core/dist_options.h's table), registered for srun,
 * sbatch and salloc, with an explicit "not given" state. */
#ifndef SPANK_DIST_OPTIONS_H
#define SPANK_DIST_OPTIONS_H

#include <slurm/spank.h>
#include <stdbool.h>

#include "dist_err.h"
#include "dist_options.h"

int dist_options_register(spank_t sp);

/* Whether option ID was given (its callback ran, whatever the value). */
bool dist_option_given(enum dist_opt_id id);
/* Its value: "" when not given, "1" for a given flag. */
const char *dist_option_text(enum dist_opt_id id);
/* Its value when given and not empty, else NULL: what the shim is handed. */
const char *dist_option_set(enum dist_opt_id id);

/* Checks the values together (for slurmstepd, where the callbacks only
 * store them); 0 when valid. */
int dist_options_validate(struct dist_err *err);

/* True when the step is to be wrapped: a mode other than "none" was given. */
bool dist_options_active(void);

#endif
