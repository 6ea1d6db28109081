/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "node/stepids.h"

#include <stdlib.h>

#include "dist_slurmenv.h"

int stepids_read(uint32_t *jobid, uint32_t *stepid, struct dist_err *err)
{
	return dist_step_ids_parse(getenv("SLURM_JOB_ID"), getenv("SLURM_STEP_ID"),
	                           getenv("PMIX_NAMESPACE"), jobid, stepid, err);
}
