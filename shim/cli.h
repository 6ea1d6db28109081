/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the shim was asked to do, from its command line or, when the SPANK
 * plugin wrapped the task, from the DIST_SHIM_* variables the plugin set. */
#ifndef SHIM_CLI_H
#define SHIM_CLI_H

#include <stdbool.h>

#include "bind/bind.h"
#include "dist_bind.h"
#include "dist_check.h"
#include "dist_err.h"
#include "dist_protocol.h"
#include "dist_roles.h"

#define SHIM_TIMEOUT_DEFAULT 120

enum cli_action { CLI_RUN, CLI_HELP, CLI_VERSION, CLI_EXPLAIN_NODE, CLI_DOCTOR };

struct cli {
	enum cli_action action;
	const char *mode;
	const char *port_range;
	const char *compat;         /* --dist-compat profiles, or NULL */
	bool launcher;              /* --launcher: only rank 0 runs the command */
	struct dist_roles roles;    /* --ps, --chief, --evaluator (mode ps) */
	bool npu_isolate;           /* --npu-isolate (mode ascend) */
	enum dist_bind_policy bind; /* --bind */
	bool explain;               /* --explain: print the binding */
	struct bind_slurm slurm;    /* what Slurm bound itself (plugin, SLURMD_TRES_BIND) */
	struct dist_check check;    /* --check: what to prove before the program starts */
	const char *topology;       /* --topology FILE (explaining a recorded node) */
	const char *gpus;           /* --gpus LIST (idem) */
	uint32_t tasks;             /* --tasks N (idem) */
	unsigned timeout_s;
	char **cmd; /* NULL-terminated; cmd[0] is the program */
	char *argv0_copy;
};

/* Returns 0, or -1 with ERR set for a usage error. */
int cli_parse(int argc, char **argv, struct cli *cli, struct dist_err *err);
void cli_usage(void);
/* Removes the DIST_SHIM_* variables so they do not reach the user's program. */
void cli_clear_env(void);

#endif
