/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fills the rank/peer model for this task: through the step's PMI when it
 * has one, PMIx or else Slurm's PMI2 (one fence carries what rank 0's node
 * must tell the others), otherwise from the variables Slurm sets in every
 * task. */
#ifndef SHIM_WIREUP_H
#define SHIM_WIREUP_H

#include <stdbool.h>

#include "dist_err.h"
#include "dist_net.h"
#include "dist_port.h"
#include "dist_world.h"

struct relay_params;
struct stepdir;
struct dist_check;

struct wireup_request {
	struct dist_port_range ports;
	unsigned timeout_s;
	const char *user_master_addr; /* MASTER_ADDR the user exported, or NULL */
	const char *user_master_port; /* MASTER_PORT the user exported, or NULL */
	bool needs_nodes;             /* fill dist_world.nodes */
	bool needs_tasks;             /* fill dist_world.tasks (an exchange only) */
	/* What a node's first task adds to its node record for the mode (no
	 * spaces), or NULL; failing stops the step on every node. */
	int (*node_extra)(const struct dist_world *w, char *buf, size_t len, struct dist_err *err);
	/* The launcher form's relay, or NULL: through an exchange rank 0 listens
	 * on a port it found free and publishes it with a fresh key; the others
	 * read both. Left unset (port 0) without an exchange. */
	struct relay_params *relay;
	/* What to prove before the program starts (--check), or NULL. */
	const struct dist_check *check;
	bool explain; /* --explain: rank 0 also says what the check proved */
	/* The node's step directory, where its first task leaves what it read
	 * of the exchange for the others (wireup/shared.h); NULL: each task
	 * reads for itself. */
	const struct stepdir *share;
};

/* How a wire-up ended; anything but WIREUP_OK means the program must not start. */
enum wireup_result {
	WIREUP_OK,
	WIREUP_FAILED,          /* this task failed; ERR says why */
	WIREUP_FAILED_UNSHARED, /* this task failed and the others cannot know: abort */
	WIREUP_PEER_FAILED,     /* another task failed and told us; ERR says which and why */
	WIREUP_TIMED_OUT,       /* the fence failed or the others never all arrived: abort */
};

/* The step's PMI, from what its launcher put in the environment: PMIx when
 * it has a PMIx server (PMIX_NAMESPACE), else Slurm's PMI2 (PMI_FD and
 * PMI_RANK, srun --mpi=pmi2), else none. Loads nothing. */
enum wireup_pmi { WIREUP_PMI_NONE, WIREUP_PMI_PMIX, WIREUP_PMI_PMI2 };
enum wireup_pmi wireup_pmi_of_step(void);
const char *wireup_pmi_name(enum wireup_pmi pmi); /* "PMIx", "PMI2", for messages */
/* LOCAL_FAILURE, when not NULL, says why this task cannot start. It still
 * joins the one fence: a node's first task reports it in its node record,
 * so every task learns of it there and none starts the program; any other
 * task aborts the step after the fence. Nobody waits out the timeout.
 * The tables W then points into are the process's up to the exec. */
enum wireup_result wireup_exchange(enum wireup_pmi pmi, const struct wireup_request *req,
                                   const char *local_failure, struct dist_world *w,
                                   struct dist_err *err);
/* Ends the whole step at once (after a timeout: someone is stuck), through
 * the exchange this task used or, if none, the one it has. */
void wireup_abort(const char *why);
/* Ends this process's use of the PMI so the user's program can start its own. */
void wireup_finalize(void);

bool wireup_slurm_available(void);
/* W's node table, when asked for, is malloc'd and the world's up to the exec. */
int wireup_slurm(const struct wireup_request *req, struct dist_world *w, struct dist_err *err);
/* Slurm's node index of each of the step's SIZE ranks (NNODES nodes), from
 * slurmctld: the one layout every PMI agrees with, for a step whose PMI
 * cannot describe it (PMI2 under --distribution=arbitrary). */
int wireup_slurm_node_of(uint32_t size, uint32_t nnodes, uint32_t *node_of, struct dist_err *err);

/* Slurm's names of W's nodes in node order (W->nnodes malloc'd strings in
 * a malloc'd array) in *NAMES, from SLURM_STEP_NODELIST and each node's
 * place in it; *NAMES NULL outside a Slurm step, or where the list is not
 * the step's. -1 with ERR set when the names cannot be read. */
int wireup_slurm_node_names(const struct dist_world *w, char ***names, struct dist_err *err);

/* Shared by both: MASTER_PORT the user set, or 0. */
int wireup_user_port(const struct wireup_request *req, uint16_t *port, struct dist_err *err);
/* First free port on this node, from the job's and step's first port on. */
int wireup_pick_port(const struct wireup_request *req, uint32_t jobid, uint32_t stepid,
                     uint16_t *port, struct dist_err *err);
/* The first port to try for this job's step in this attempt of the job
 * (SLURM_RESTART_COUNT). */
uint16_t wireup_first_port(const struct dist_port_range *ports, uint32_t jobid, uint32_t stepid);
/* Which attempt of which job this is (SLURM_RESTART_COUNT, SLURM_JOB_ID),
 * into W: torchrun's restart count and run id. */
void wireup_attempt(struct dist_world *w);
/* GPUs this task sees: the entries of CUDA_VISIBLE_DEVICES. */
uint32_t wireup_local_gpus(void);
/* Sets w->master_ifname to the local interface that reaches w->master_addr. */
void wireup_find_master_ifname(struct dist_world *w, const struct dist_addr_list *local);

#endif
