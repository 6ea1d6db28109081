/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dist-shim: runs as the user in each task of a step, sets up the contract
 * of the chosen mode, and execs the user's program in its own place
 * (task.c); or does what else its command line asks. */
#include <stdio.h>
#include <stdlib.h>

#include "base/carried.h"
#include "base/module.h"
#include "base/msg.h"
#include "bind/bind.h"
#include "cli.h"
#include "task.h"

/* --doctor, from its module: it needs every library the others load. */
static int run_doctor(const char *port_range)
{
	struct dist_err err = {{0}};
	const struct doctor_module *m = module_doctor(&err);

	if (!m) {
		msg_error("%s", err.msg);
		return 1;
	}
	return m->run(port_range);
}

/* --explain-node: a node's binding table, from a recorded topology or this
 * machine's. */
static int explain_node(const struct cli *cli)
{
	struct dist_err err = {{0}};
	const char *gpus = cli->gpus ? cli->gpus : getenv("CUDA_VISIBLE_DEVICES");

	if (bind_explain_node(cli->topology, gpus, cli->tasks, &err)) {
		msg_error("%s", err.msg);
		return EXIT_WIREUP;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dist_err err = {{0}};
	/* Lives until the exec: its world points into it. */
	struct task task = TASK_INIT;

	carried_adopt();
	if (cli_parse(argc, argv, &task.cli, &err)) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	switch (task.cli.action) {
	case CLI_HELP:
		cli_usage();
		return 0;
	case CLI_VERSION:
		printf("dist-shim: %s\n", DIST_VERSION_LINE);
		return 0;
	case CLI_DOCTOR:
		return run_doctor(task.cli.port_range);
	case CLI_EXPLAIN_NODE:
		return explain_node(&task.cli);
	case CLI_RUN:
		break;
	}
	return task_run(&task);
}
