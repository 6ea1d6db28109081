/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What srun's plugin tells the tasks of a step without PMI about the
 * step's nodes, so that no task has to ask slurmctld (one query per step,
 * from srun, instead of one per task): which Slurm node is the Kth of the
 * step's order (nodes by their lowest rank, rank 0's first) and the nodes'
 * NodeAddr, every node's or only the first's. Text form, in
 * SLURM_DIST_STEP_NODES:
 *   "JOB.STEP N ORDER ADDRS"
 * ORDER "-" when it is Slurm's own order, else N comma-separated Slurm node
 * indexes; ADDRS the NodeAddr of the first node of the step's order, or of
 * all N in that order, comma-separated. */
#ifndef DIST_STEPNODES_H
#define DIST_STEPNODES_H

#include <stdint.h>

#include "dist_buf.h"
#include "dist_err.h"

struct dist_stepnodes {
	uint32_t job, step, nnodes;
	uint32_t *order; /* nnodes entries; NULL for Slurm's own order */
	char **addrs;    /* naddrs NodeAddr strings, in the step's order */
	uint32_t naddrs; /* 1 (the first node's) or nnodes */
};

/* Appends the text form of S to OUT. */
int dist_stepnodes_format(const struct dist_stepnodes *s, struct dist_buf *out,
                          struct dist_err *err);

/* Parses TEXT into S (malloc'd parts: dist_stepnodes_free). */
int dist_stepnodes_parse(const char *text, struct dist_stepnodes *s, struct dist_err *err);

void dist_stepnodes_free(struct dist_stepnodes *s);

#endif
