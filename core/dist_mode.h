/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One distribution mode: the name users pass to --dist-mode and the contract
 * (environment) it exports. Adding a mode is a new mode_<name>.c and one
 * entry in dist_mode.c's table. */
#ifndef DIST_MODE_H
#define DIST_MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "dist_env.h"
#include "dist_err.h"
#include "dist_world.h"

/* Files one mode writes: a fixed set per mode (mpi 2, ascend 1), not
 * something that grows with the job; each file's content is heap text. */
#define DIST_FILES_MAX 4

/* Where torch's @record writes a failing rank's error (TORCHELASTIC_ERROR_FILE),
 * in the step's private directory, by rank. */
#define DIST_ERROR_FILE_FMT "torchelastic-error.%u.json"

/* A file a mode wants in the step's private directory on every node. */
struct dist_file {
	const char *name; /* a plain file name, no '/' */
	char *content;    /* malloc'd */
};

struct dist_files {
	struct dist_file f[DIST_FILES_MAX];
	size_t count;
};

int dist_files_add(struct dist_files *files, const char *name, char *content, struct dist_err *err);
void dist_files_free(struct dist_files *files);

struct dist_mode {
	const char *name;
	const char *summary;
	/* Needs dist_world.nodes (every node's address, tasks and GPUs). */
	bool needs_nodes;
	/* The program wires itself up through the step's PMI, whichever Slurm
	 * gives it (PMIx or PMI2, MPI_Init). Under Slurm 22.05's PMIx server
	 * (PMIx 4) a rank can connect only once, and a PMI2 connection (PMI_FD)
	 * the shim consumed is gone for the program: the shim then uses neither.
	 * A PMIx 5+ server lets the program connect after the shim
	 * (dist_pmix_shareable). */
	bool program_uses_pmi;
	/* Needs dist_world.tasks: an address and a free port for every task,
	 * which only an exchange (PMIx) can give. */
	bool needs_tasks;
	/* Needs every node's NPUs (dist_world.node_extras): each node's first
	 * task reads them from hccn.conf; only an exchange (PMIx) spreads them. */
	bool needs_npus;
	/* Names the nodes as Slurm does (dist_world.node_names) when in a
	 * Slurm step: its hostfiles are for launchers inside the allocation. */
	bool names_nodes;
	/* Fills ENV with the variables this mode's frameworks expect. */
	int (*build_env)(const struct dist_world *world, struct dist_env *env,
	                 struct dist_err *err);
	/* Fills FILES with what the mode writes once per node into
	 * world->step_dir (the env may point at them); NULL if it writes none. */
	int (*build_files)(const struct dist_world *world, struct dist_files *files,
	                   struct dist_err *err);
};

/* Whether a task's program can still connect to the step's PMIx server
 * (MPI_Init) after the shim connected, exchanged and finalized, from the
 * version that server announces to every task (PMIX_VERSION, e.g. "5.0.7a1"):
 * PMIx 5 or later. Checked with Debian's pairs only: Slurm 24.11 with PMIx
 * 5.0.7 lets the program in; Slurm 22.05 with PMIx 4.2.2 fails its MPI_Init.
 * NULL or unreadable: no, the safe answer. */
bool dist_pmix_shareable(const char *server_version);

/* What a --dist-mode value means. */
enum dist_mode_status {
	DIST_MODE_OFF,       /* "none": leave the step alone */
	DIST_MODE_AVAILABLE, /* implemented */
	DIST_MODE_PLANNED,   /* a known mode not implemented yet */
	DIST_MODE_UNKNOWN,
};

enum dist_mode_status dist_mode_lookup(const char *name, const struct dist_mode **mode);

/* The implemented modes in table order, NULL after the last: for tools and
 * tests that must cover every mode (a new mode is covered by adding it). */
const struct dist_mode *dist_mode_at(size_t index);

/* Checks a --dist-mode value; on error ERR says what is valid. */
int dist_mode_validate(const char *name, struct dist_err *err);

/* "none|ddp": the values --dist-mode accepts today, for help texts. */
const char *dist_mode_choices(void);

extern const struct dist_mode dist_mode_ddp;
extern const struct dist_mode dist_mode_mpi;
extern const struct dist_mode dist_mode_ps;
extern const struct dist_mode dist_mode_ascend;

#endif
