/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rank/peer model every mode works from: who this task is, where the
 * master is, and how this node reaches it. Filled by the shim from PMIx or
 * Slurm's environment; built by hand in tests. */
#ifndef DIST_WORLD_H
#define DIST_WORLD_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_roles.h"

#define DIST_IFNAME_MAX 16 /* IFNAMSIZ */
#define DIST_ADDR_MAX   64 /* a numeric IPv4 address or a host name */

/* One node of the step, as every node sees it. */
struct dist_node {
	char addr[DIST_ADDR_MAX]; /* IPv4 address every node of the step reaches */
	uint32_t ntasks;          /* tasks of the step on it */
	uint32_t gpus;            /* GPUs its first task sees */
	uint8_t prefix;           /* its subnet's prefix length; 0 when unknown */
	/* Its place in Slurm's list of the step's nodes (SLURM_STEP_NODELIST,
	 * the order of SLURM_TASKS_PER_NODE), which the step's order (rank 0's
	 * node first) need not follow. */
	uint32_t slurm_index;
};

/* One task of the step, as every task sees it (modes that list every task). */
struct dist_task {
	char addr[DIST_ADDR_MAX]; /* its node's address every node reaches */
	uint16_t port;            /* a port its node's first task found free for it */
};

/* Which Open MPI runtime the task's mpirun belongs to: it decides the
 * names its launcher reads (see mode_mpi.c). */
enum dist_ompi {
	DIST_OMPI_UNKNOWN, /* no Open MPI mpirun on the task's PATH */
	DIST_OMPI_ORTE,    /* Open MPI 4 (and 3): mpirun beside orted */
	DIST_OMPI_PRRTE,   /* Open MPI 5 and later: mpirun beside prted */
};

struct dist_world {
	uint32_t rank;       /* global rank, 0..size-1 */
	uint32_t size;       /* tasks in the step */
	uint32_t local_rank; /* rank among the tasks of this node */
	uint32_t local_size; /* tasks on this node */
	uint32_t node_rank;  /* index of this node, 0..nnodes-1; rank 0's node is 0 */
	uint32_t nnodes;     /* nodes in the step */
	char master_addr[DIST_ADDR_MAX];
	uint16_t master_port;
	/* Local interface that reaches master_addr; empty when unknown. */
	char master_ifname[DIST_IFNAME_MAX];
	uint32_t local_gpus; /* GPUs this task sees (CUDA_VISIBLE_DEVICES) */
	/* nnodes entries in node order (rank 0's node first) when the mode or a
	 * profile asked for them (dist_mode.needs_nodes), else NULL. */
	const struct dist_node *nodes;
	/* size entries in rank order when the mode asked for them
	 * (dist_mode.needs_tasks), else NULL. */
	const struct dist_task *tasks;
	struct dist_roles roles; /* parameter-server layout (mode ps) */
	/* When the mode asked for node tables (needs_nodes), under PMIx: every
	 * node's ranks ascending, node after node (nodes[k].ntasks each). */
	const uint32_t *ranks_by_node;
	/* What each node's first task reported for the mode (dist_mode.needs_npus:
	 * its NPUs, "id=ip,..."), nnodes entries; NULL otherwise. */
	const char *const *node_extras;
	/* Slurm's names of the nodes, nnodes entries in node order, in a Slurm
	 * step for modes that name them (dist_mode.names_nodes), on the node's
	 * first task, which writes the files; NULL otherwise (the hostfiles
	 * then list addresses). */
	const char *const *node_names;
	uint16_t hccl_base_port; /* first of 32 ports for HCCL (mode ascend) */
	bool npu_isolate;        /* each task sees only its own NPU (mode ascend) */
	/* The step's private directory on this node, for modes that write
	 * files (dist_mode.build_files); NULL otherwise. */
	const char *step_dir;
	/* The launcher form (--dist-launcher): rank 0 runs a launcher whose
	 * processes inherit its environment, so the contract holds only what is
	 * true for all of them (dist_contract_env). */
	bool launcher;
	enum dist_ompi ompi; /* mode mpi */
	/* The step has a PMIx server its program can use (srun --mpi=pmix). */
	bool step_has_pmix;
	/* Times Slurm requeued the job (SLURM_RESTART_COUNT); 0 on its first run. */
	uint32_t restart_count;
	/* One id for the job over all its attempts (Slurm's job id), what
	 * torchrun calls the run id; empty when unknown. */
	char run_id[DIST_ADDR_MAX];
};

#endif
