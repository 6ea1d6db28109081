/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether the user asked Slurm itself to bind the step's tasks to CPUs
 * (srun's --cpu-bind, or its SLURM_CPU_BIND input variable). The shim then
 * leaves each task's CPUs as Slurm bound them (docs/binding.md). Only srun's
 * environment, as slurmstepd received it, tells: by the time a task starts,
 * slurmstepd has rewritten SLURM_CPU_BIND with task/affinity's own default
 * binding, which the user did not ask for. (GPUs need no help: the step's
 * SLURMD_TRES_BIND, which every task sees, names Slurm's GPU binding.) */
#ifndef SPANK_DIST_USERBIND_H
#define SPANK_DIST_USERBIND_H

#include <slurm/spank.h>

/* slurmstepd, before the tasks are forked: reads srun's SLURM_CPU_BIND. */
void userbind_note(spank_t sp);

/* "cpu" for the shim (DIST_SHIM_ENV_USER_BIND), or NULL when the user asked
 * Slurm for no CPU binding. */
const char *userbind_value(void);

#endif
