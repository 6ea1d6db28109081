/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Platform profiles (--dist-compat): each managed platform's names and
 * meanings on top of a mode's contract. A profile is data, one table per
 * platform in dist_profile.c: a new platform is a new table, not new logic. */
#ifndef DIST_PROFILE_H
#define DIST_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "dist_buf.h"
#include "dist_env.h"
#include "dist_err.h"
#include "dist_world.h"

/* What a profile variable or argument is set to. */
enum dist_source {
	SRC_RANK,             /* global rank of the task */
	SRC_WORLD_SIZE,       /* tasks in the step */
	SRC_LOCAL_RANK,       /* rank among the node's tasks */
	SRC_NODE_RANK,        /* index of the node */
	SRC_NNODES,           /* nodes in the step */
	SRC_MASTER_ADDR,      /* MASTER_ADDR */
	SRC_MASTER_PORT,      /* MASTER_PORT */
	SRC_MASTER_ADDR_PORT, /* "addr:port" */
	SRC_TCP_INIT_METHOD,  /* "tcp://addr:port" */
	SRC_PROCS_PER_NODE,   /* processes a per-node launcher should start: GPUs, at least 1 */
	/* From the node table (dist_world.nodes): */
	SRC_NODE_ADDR,      /* this node's address every node reaches */
	SRC_GPUS_PER_NODE,  /* GPUs on this node */
	SRC_GPUS_TOTAL,     /* GPUs on all nodes */
	SRC_HOST_LIST,      /* "addr,addr,..." */
	SRC_NODE_GPU_LIST,  /* "addr:gpus,..." */
	SRC_NODE_SLOT_LIST, /* "addr:slots,...", slots as dist_node_slots */
	/* From the task table and roles (mode ps): */
	SRC_TF_ROLE,         /* "chief", "ps", "worker" or "evaluator" */
	SRC_TF_INDEX,        /* index within the role */
	SRC_TF_PS_HOSTS,     /* "addr:port,..." of the ps tasks */
	SRC_TF_WORKER_HOSTS, /* "addr:port,..." of the workers */
	SRC_MS_ROLE,         /* MindSpore: MS_SCHED (chief), MS_PSERVER (ps), MS_WORKER */
	SRC_MS_SCHED_HOST,   /* the chief's address */
	SRC_MS_SCHED_PORT,   /* the chief's port */
	SRC_MS_WORKER_NUM,   /* workers */
	SRC_MS_SERVER_NUM,   /* parameter servers */
};

struct dist_profile_var {
	const char *name;
	enum dist_source source;
};

struct dist_profile_arg {
	const char *flag;
	enum dist_source source;
	bool multi_node_only; /* left out when the step has one node */
};

struct dist_profile {
	const char *name;
	const char *platform;
	const struct dist_profile_var *vars;
	size_t nvars;
	const struct dist_profile_arg *args; /* appended to the user's command */
	size_t nargs;
	const char *modes; /* the --dist-mode values it applies to, comma-separated */
};

/* Profiles in one --dist-compat list: each platform at most once, so bounded
 * by the table (checked at compile time in dist_profile.c). */
#define DIST_PROFILES_MAX 8

/* Parses "tione,kubeflow" into PROFILES (known names, no repeats). */
int dist_profiles_parse(const char *list, const struct dist_profile **profiles, size_t *count,
                        struct dist_err *err);

/* Replaces each of PROFILES by its table for MODE (a platform may name things
 * differently per mode); a profile with no table for MODE is an error. */
int dist_profiles_select_mode(const struct dist_profile **profiles, size_t count, const char *mode,
                              struct dist_err *err);

/* "modelarts|tione|azureml|kubeflow|mindspore", for help texts. */
const char *dist_profile_choices(void);

/* True when a profile needs dist_world.nodes. */
bool dist_profile_needs_nodes(const struct dist_profile *profile);

/* False for a value that belongs to one task or one node (a rank, an
 * index, a role, this node's address) or counts the step's tasks: in the
 * launcher form (dist_world.launcher) it would wrongly reach every process
 * the launcher starts. */
bool dist_source_same_for_all(enum dist_source source);

/* Sets the profiles' variables in ENV over the mode's; in the launcher
 * form only those dist_source_same_for_all (and no arguments, in
 * dist_profiles_build_args). Two profiles giving
 * one variable different values is an error naming both. */
int dist_profiles_build_env(const struct dist_profile *const *profiles, size_t count,
                            const struct dist_world *w, struct dist_env *env, struct dist_err *err);

/* The arguments the profiles append to the user's command, as a
 * NULL-terminated malloc'd array of malloc'd strings (free with
 * dist_argv_free); *ARGC is their number. */
int dist_profiles_build_args(const struct dist_profile *const *profiles, size_t count,
                             const struct dist_world *w, char ***argv, size_t *argc,
                             struct dist_err *err);
void dist_argv_free(char **argv);

/* What SOURCE means, in words, for the docs generated from the tables. */
const char *dist_source_describe(enum dist_source source);

/* The shipped profiles, for the docs generator. */
const struct dist_profile *dist_profile_table(size_t *count);

/* A node's slots in hostfiles and slot lists: its tasks, or its GPUs when
 * more (one task per node launching a process per GPU). */
uint32_t dist_node_slots(const struct dist_node *node);

/* Renders SOURCE for W into OUT (emptied first; as long as the value is). */
int dist_source_render(enum dist_source source, const struct dist_world *w, struct dist_buf *out,
                       struct dist_err *err);

#endif
