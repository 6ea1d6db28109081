/* SPDX-License-Identifier: GPL-2.0-or-later */
/* srun, for a step whose tasks have no PMI: one query to slurmctld for the
 * step's layout and node addresses, handed to every task in
 * SLURM_DIST_STEP_NODES (core/dist_stepnodes.h), so that the tasks need not
 * each ask (they still do when it is missing). Runs as the user, in srun. */
#ifndef SPANK_DIST_STEPNODES_H
#define SPANK_DIST_STEPNODES_H

#include <slurm/spank.h>
#include <stdbool.h>

/* ALL_ADDRS: every node's address (the mode or a profile lists the nodes),
 * else the first node's only. Best effort: says nothing when it cannot. */
void stepnodes_publish(spank_t sp, bool all_addrs);

#endif
