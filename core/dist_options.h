/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user's options, one row each: the plugin's option for srun, sbatch
 * and salloc (--dist-NAME), the variable through which it hands the value
 * to the shim (DIST_SHIM_<ID>), and the shim's own long option. A new option
 * is one row here and its parser (the CHECK column; the shim's apply
 * function, shim/cli.c). */
#ifndef DIST_OPTIONS_H
#define DIST_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "dist_err.h"

/* X(ID, SPANK, SHIM, SHORT, ARG, LEN, CHECK, HELP), in srun --help's order:
 *   SPANK  the plugin's option, without its dashes
 *   SHIM   dist-shim's long option; SHORT its one-letter form
 *   ARG    the value's name in help, NULL for a flag
 *   LEN    the longest value kept, plus one (0 for a flag)
 *   CHECK  the value's parser, as dist_opt_check_fn (NULL for a flag)
 *   HELP   srun --help's text; NULL: the plugin builds it (--dist-mode names
 *          the modes of this build) */
#define DIST_OPTIONS(X)                                                                            \
	X(MODE, "dist-mode", "mode", 'm', "MODE", 64, dist_opt_check_mode, NULL)                   \
	X(COMPAT, "dist-compat", "compat", 'c', "LIST", 256, dist_opt_check_compat,                \
	  "With --dist-mode, also give tasks what these platforms set: "                           \
	  "modelarts|tione|azureml|kubeflow, comma-separated. (slurm-dist)")                       \
	X(LAUNCHER, "dist-launcher", "launcher", 'l', NULL, 0, NULL,                               \
	  "With --dist-mode and one task per node, only the first task runs the command "          \
	  "(mpirun, horovodrun, deepspeed...); the others wait and exit with its status. "         \
	  "(slurm-dist)")                                                                          \
	X(PS, "dist-ps", "ps", 's', "N", 16, dist_opt_check_ps,                                    \
	  "With --dist-mode=ps: the number of parameter servers (default 1). (slurm-dist)")        \
	X(CHIEF, "dist-chief", "chief", 'C', NULL, 0, NULL,                                        \
	  "With --dist-mode=ps: rank 0 is the chief. (slurm-dist)")                                \
	X(EVALUATOR, "dist-evaluator", "evaluator", 'E', NULL, 0, NULL,                            \
	  "With --dist-mode=ps: the last rank is the evaluator. (slurm-dist)")                     \
	X(NPU_ISOLATE, "dist-npu-isolate", "npu-isolate", 'I', NULL, 0, NULL,                      \
	  "With --dist-mode=ascend: each task sees only its own NPU (ASCEND_DEVICE_ID=0). "        \
	  "(slurm-dist)")                                                                          \
	X(BIND, "dist-bind", "bind", 'b', "POLICY", 16, dist_opt_check_bind,                       \
	  "With --dist-mode: auto (default) binds each task to its GPU, the CPUs near it and "     \
	  "the nearest NIC; none leaves binding to Slurm. (slurm-dist)")                           \
	X(CHECK, "dist-check", "check", 'K', "CHECK", 16, dist_opt_check_check,                    \
	  "With --dist-mode: net[:SECONDS] proves, before the program starts, that every node "    \
	  "reaches the master's port and the next node from the chosen interface; the step "       \
	  "fails in seconds naming the nodes that cannot. (slurm-dist)")                           \
	X(EXPLAIN, "dist-explain", "explain", 'x', NULL, 0, NULL,                                  \
	  "With --dist-mode: each task prints its GPU, CPUs and NIC before it starts, and "        \
	  "rank 0 the container path. (slurm-dist)")

enum dist_opt_id {
#define DIST_OPT_ID(id, ...) DIST_OPT_##id,
	DIST_OPTIONS(DIST_OPT_ID)
#undef DIST_OPT_ID
	        DIST_OPT_COUNT
};

/* The hand-over variable of option ID (a string literal). */
#define DIST_OPT_ENV(id) "DIST_SHIM_" #id

/* Checks TEXT as the value of OPTION ("--dist-ps" or "--ps": the name the
 * user gave, for the message); 0 when valid. */
typedef int dist_opt_check_fn(const char *option, const char *text, struct dist_err *err);
dist_opt_check_fn dist_opt_check_mode, dist_opt_check_compat, dist_opt_check_ps,
        dist_opt_check_bind, dist_opt_check_check;

struct dist_opt {
	const char *spank;      /* "dist-ps" */
	const char *spank_flag; /* "--dist-ps", for messages */
	const char *shim;       /* "ps" */
	const char *shim_flag;  /* "--ps" */
	char shim_short;
	const char *env; /* "DIST_SHIM_PS" */
	const char *arg; /* NULL: a flag */
	size_t len;
	dist_opt_check_fn *check;
	const char *help;
};

extern const struct dist_opt dist_opts[DIST_OPT_COUNT];

static inline bool dist_opt_is_flag(const struct dist_opt *o)
{
	return o->arg == NULL;
}

#endif
