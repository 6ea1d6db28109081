/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure parsers for Slurm's step description variables. */
#ifndef DIST_SLURMENV_H
#define DIST_SLURMENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_buf.h"
#include "dist_err.h"

/* Expands SLURM_STEP_TASKS_PER_NODE ("2(x3),1") into one count per node. */
int dist_tasks_per_node_parse(const char *text, uint32_t *counts, size_t max, size_t *n,
                              struct dist_err *err);

/* The inverse: N counts (N > 0) appended to OUT in that form, a run of K
 * equal counts C as "C(xK)". */
void dist_tasks_per_node_format(const uint32_t *counts, size_t n, struct dist_buf *out);

/* True when a step's argv is srun --multi-prog's: Slurm 22.05 sends the
 * configuration file's name and its whole text as argv[0] and argv[1], and
 * each task then runs its own line's command, not this argv. */
bool dist_is_multi_prog_argv(int argc, char *const *argv);

/* Parses a decimal at the start of TEXT, leaving *END after it. */
int dist_parse_u32_prefix(const char *text, uint32_t *value, char **end);

/* Entries of a comma-separated list such as CUDA_VISIBLE_DEVICES ("0,1,3"):
 * 0 for NULL, "" or Slurm's "NoDevFiles". */
uint32_t dist_count_list_items(const char *list);

/* The step's node order every task must agree on: nodes by their lowest
 * rank (LEADERS[i]: node i's, in Slurm's node order), so rank 0's node is 0.
 * ORDER[k] is the Slurm index of the Kth node; -1 when two nodes share a
 * leader or N is 0. */
int dist_nodes_by_leader(const uint32_t *leaders, uint32_t n, uint32_t *order);

/* The indexes of a GPU list such as CUDA_VISIBLE_DEVICES ("0,1,3"; items
 * counted as dist_count_list_items counts them) in INDEXES, N of them; -1
 * when the list does not hold exactly N or an item is not an index (a
 * UUID, "NoDevFiles"). */
int dist_gpu_indexes_parse(const char *list, uint32_t *indexes, uint32_t n);

/* Parses a non-negative decimal that fits in 32 bits. */
int dist_parse_u32(const char *text, uint32_t *value);

/* The step's job and step ids from the text of SLURM_JOB_ID and
 * SLURM_STEP_ID (JOB, STEP; NULL when unset). Fails naming the first that
 * is unset or not a number, yet fills both ids even then, each with its
 * fallback outside Slurm: for the job a hash of NSPACE, the PMIx namespace
 * (NULL: none), on which the tasks of one launch agree; for the step 0. */
int dist_step_ids_parse(const char *job, const char *step, const char *nspace, uint32_t *jobid,
                        uint32_t *stepid, struct dist_err *err);

#endif
