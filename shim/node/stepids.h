/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The step's job and step ids: the one place the shim reads them. */
#ifndef SHIM_STEPIDS_H
#define SHIM_STEPIDS_H

#include <stdint.h>

#include "dist_err.h"

/* The ids from SLURM_JOB_ID and SLURM_STEP_ID. Fails outside a Slurm step,
 * yet fills both ids even then, as dist_step_ids_parse says (the job's from
 * PMIX_NAMESPACE): callers that can do without Slurm's ignore the result. */
int stepids_read(uint32_t *jobid, uint32_t *stepid, struct dist_err *err);

#endif
