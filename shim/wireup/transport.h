/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the one exchange needs from the step's PMI: a key-value store with
 * one collecting fence, as PMIx and Slurm's PMI2 both offer. One file per
 * transport (wireup/pmix_mod.c, wireup/pmi2_mod.c), each loaded as a module
 * (base/module.h); what is put, read and built from it is theirs in common
 * (wireup/exchange.c). */
#ifndef SHIM_WIREUP_TRANSPORT_H
#define SHIM_WIREUP_TRANSPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_world.h"

/* One node of the step: the ranks on it, ascending (malloc'd). */
struct wireup_node {
	uint32_t ntasks;
	uint32_t *ranks;
	uint32_t slurm_index; /* its place in the transport's list: Slurm's order */
};

/* What the shim lends a transport: each is a module of its own (base/module.h),
 * which reaches nothing else of the shim. */
struct wireup_host {
	/* wireup_slurm_node_of (wireup/wireup.h): PMI2 cannot describe every layout. */
	int (*slurm_node_of)(uint32_t size, uint32_t nnodes, uint32_t *node_of,
	                     struct dist_err *err);
};

struct wireup_transport {
	const char *name; /* "PMIx", "PMI2", for messages */
	size_t max_value; /* the longest value put takes, its NUL included */
	/* Connects; fills rank, size, local_rank, local_size, node_rank, nnodes. */
	int (*init)(const struct wireup_host *host, struct dist_world *w, struct dist_err *err);
	/* A string for every task to read after the fence, under this task's rank. */
	int (*put)(const char *key, const char *value, struct dist_err *err);
	int (*commit)(struct dist_err *err);
	/* The collecting fence; fails when TIMEOUT_S pass before every task came.
	 * A second fence (after a first that succeeded) publishes what was put
	 * since. */
	int (*fence)(unsigned timeout_s, struct dist_err *err);
	/* The string RANK put under KEY before the fence. */
	int (*get)(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
	           struct dist_err *err);
	/* The step's nodes, in any order: at most MAX, *COUNT of them. */
	int (*layout)(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
	              uint32_t *count, struct dist_err *err);
	/* Ends the whole step at once, connecting first if this task never did
	 * (a transport is loaded only for the step's own PMI: wireup_pmi_of_step). */
	void (*abort)(const char *why);
	/* Ends this process's use of the PMI before the program starts. */
	void (*finalize)(void);
};

/* A fence's outcome, for a wait bounded by the shim (no transport bounds
 * its own): one fence at a time per process, so one static instance each. */
struct wireup_wait {
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	bool done;
	int status;
};
#define WIREUP_WAIT_INIT                                                                           \
	{                                                                                          \
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0                      \
	}

/* wireup/wait.c, linked into the shim and into each transport's module. */
/* Makes WAIT ready for the next fence (a step may fence twice: --check net). */
void wireup_wait_reset(struct wireup_wait *wait);
/* Records that the fence ended with STATUS. */
void wireup_wait_done(struct wireup_wait *wait, int status);
/* Waits until the fence ended (0, its *STATUS) or TIMEOUT_S passed (-1, ERR). */
int wireup_wait_for(struct wireup_wait *wait, unsigned timeout_s, int *status,
                    struct dist_err *err);

/* How long a task that never connected waits before it connects only to
 * abort: an abort that reaches srun while it is still launching the step
 * ends the launch before this task's stderr is forwarded. */
#define WIREUP_ABORT_GRACE_S 2
/* Milliseconds an aborting task gives its last message to reach srun. */
#define WIREUP_ABORT_MSG_GRACE_MS 300

#endif
