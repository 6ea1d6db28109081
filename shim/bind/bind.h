/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --bind: applies the binding plan (dist_bind.h) to this task, and
 * --explain: prints it, for this task or for a whole recorded node. */
#ifndef SHIM_BIND_H
#define SHIM_BIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_world.h"
#include "node/stepdir.h"

/* What Slurm bound itself (--cpu-bind; --gpu-bind, --gpus-per-task): the
 * shim leaves it alone (docs/binding.md, "Slurm's binding"). */
struct bind_slurm {
	bool cpus;            /* each task keeps the CPUs Slurm bound it to */
	bool gpus;            /* Slurm gave each task its GPUs: its own is their first */
	const char *gpu_bind; /* Slurm's GPU binding ("single:1"), gpu_bind_len bytes */
	size_t gpu_bind_len;
};

/* Binds this task (local rank W->local_rank of W->local_size) and exports
 * OMP_NUM_THREADS and NCCL_IB_HCA unless the user set them; with EXPLAIN,
 * prints one line saying what it chose. What SLURM bound stays as Slurm
 * made it (rank 0 says so once for the step). SHARE, when not NULL, is
 * where the node's tasks share one topology discovery. */
int bind_task(const struct dist_world *w, const struct stepdir *share, struct bind_slurm slurm,
              bool explain, struct dist_err *err);

/* Prints the plan of every task of a node: TOPOLOGY a recorded hwloc XML
 * (NULL: this machine), GPUS the step's GPU list, TASKS the node's tasks. */
int bind_explain_node(const char *topology, const char *gpus, uint32_t tasks, struct dist_err *err);

#endif
