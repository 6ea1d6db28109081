/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the user asked Slurm itself to bind the step's tasks (srun's
 * --cpu-bind, --gpu-bind, or their SLURM_CPU_BIND/SLURM_GPU_BIND input
 * variables). The shim then leaves that binding to Slurm (docs/binding.md).
 * Only srun's environment, as slurmstepd received it, tells: by the time a
 * task starts, slurmstepd has rewritten SLURM_CPU_BIND with task/affinity's
 * own default binding, which the user did not ask for. */
#ifndef SPANK_DIST_USERBIND_H
#define SPANK_DIST_USERBIND_H

#include <slurm/spank.h>

/* slurmstepd, before the tasks are forked: reads srun's variables. */
void userbind_note(spank_t sp);

/* "cpu", "gpu", "cpu,gpu" for the shim (DIST_SHIM_ENV_USER_BIND), or NULL
 * when the user asked Slurm for neither. */
const char *userbind_value(void);

#endif
