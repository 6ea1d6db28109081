/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which GPU, CPUs and NIC each task of a node gets (--dist-bind=auto).
 * Pure: the shim reads the topology (hwloc) and applies the plan.
 *   GPU   the Nth task of the node gets the Nth GPU of the step's list
 *         (CUDA_VISIBLE_DEVICES), distinct while there are enough;
 *   CPUs  the CPUs near its GPU (the GPU's package or NUMA node) that the
 *         task may use, split in equal contiguous shares (whole cores, as
 *         the CPUs come in topology order) between the tasks
 *         near the same GPUs; without GPU locality, all allowed CPUs split
 *         between all the node's tasks; never outside the allowed CPUs, and
 *         all of them when Slurm already gave each task its own;
 *   NIC   the RDMA device nearest its GPU, if any. */
#ifndef DIST_BIND_H
#define DIST_BIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"

#define DIST_NIC_MAX 32

enum dist_bind_policy { DIST_BIND_NONE, DIST_BIND_AUTO };

/* Parses "auto" or "none" given to OPTION ("--dist-bind"). */
int dist_bind_policy_parse(const char *option, const char *text, enum dist_bind_policy *policy,
                           struct dist_err *err);

/* The CPUs near one GPU and the RDMA device nearest it ("" if none). */
struct dist_locality {
	const uint32_t *cpus; /* in topology order: a core's threads together */
	size_t ncpus;
	char nic[DIST_NIC_MAX];
};

struct dist_bind_input {
	const uint32_t *allowed; /* CPUs the task may use, in topology order */
	size_t nallowed;
	uint32_t ngpus;                         /* GPUs in the step's list on this node */
	const struct dist_locality *localities; /* one per GPU, or NULL if unknown */
	uint32_t local_size;                    /* tasks on this node */
	/* Slurm already bound each task to its own CPUs (task/affinity,
	 * --cpu-bind): keep all of them instead of sharing them out again. */
	bool task_bound;
	/* The user chose Slurm's CPU binding (--cpu-bind): the task keeps
	 * exactly the CPUs Slurm left it, none taken away. */
	bool keep_cpus;
	/* Slurm gave each task its own GPUs (--gpu-bind, --gpus-per-task): the
	 * task's GPU is the first of its own list. The CPUs are still shared
	 * out between the node's tasks (unless Slurm bound those too): without
	 * task/affinity, tasks with their own GPUs would otherwise overlap. */
	bool gpu_first;
};

struct dist_bind_plan {
	int32_t gpu;    /* index in the step's GPU list, -1 for none */
	uint32_t *cpus; /* malloc'd, ascending */
	size_t ncpus;
	char nic[DIST_NIC_MAX];
};

int dist_bind_plan_for(const struct dist_bind_input *in, uint32_t local_rank,
                       struct dist_bind_plan *plan, struct dist_err *err);
void dist_bind_plan_free(struct dist_bind_plan *plan);

/* Whether srun's SLURM_CPU_BIND (as the user's --cpu-bind left it,
 * "quiet,cores", "verbose,map_cpu:1,0") asks Slurm for a binding: anything
 * but the words "quiet" and "verbose". */
bool dist_slurm_bind_given(const char *value);

/* Whether Slurm binds GPUs to tasks, from the step's SLURMD_TRES_BIND
 * ("gpu:closest", "gpu:verbose,single:1", "gres/gpu:per_task:1", several
 * separated by ';'): *WHAT (length *LEN) is the GPU part after "gpu:". */
bool dist_slurm_gpu_bind(const char *tres_bind, const char **what, size_t *len);

/* "0-3,8,10-11": compact CPU list, as taskset and Slurm print them. */
int dist_cpu_list_format(const uint32_t *cpus, size_t n, char *buf, size_t len);
/* The same in a string just long enough (malloc'd), or NULL without memory. */
char *dist_cpu_list_alloc(const uint32_t *cpus, size_t n);
/* Parses such a list ("0-3,8"): ascending, no repeats (malloc'd *CPUS). */
int dist_cpu_list_parse(const char *text, uint32_t **cpus, size_t *n, struct dist_err *err);

#endif
