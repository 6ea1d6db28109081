/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task from its plan to its program: the program found, the task
 * prepared, then the exec (or, in the launcher form, rank 0's launcher and
 * the others waiting for its status). */
#include "task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/carried.h"
#include "base/msg.h"
#include "dist_launch.h"
#include "dist_launchline.h"
#include "dist_runtime.h"
#include "errfile_watch.h"
#include "launch.h"

/* torchrun in several tasks of a node: each task's torchrun starts its
 * own workers (--ntasks-per-node=8 torchrun --nproc_per_node=8: 64
 * processes for 8 GPUs) and PET_NNODES counts nodes, not tasks. Decided
 * alike on every task (some node has more than one task), so all stop. */
static int refuse_torchrun_per_task(const struct task *t)
{
	const struct dist_world *w = &t->world;
	const char *allow = getenv("DIST_TORCHRUN_PER_TASK");

	if (w->size <= w->nnodes || !dist_is_torch_launcher(t->cli.cmd) ||
	    (allow && strcmp(allow, "1") == 0))
		return 0;
	if (w->rank == 0)
		msg_error("%u tasks on %u nodes would each run torch's launcher, which starts its "
		          "own workers in every task; run one per node (srun --ntasks-per-node=1 "
		          "torchrun --nproc_per_node=GPUS train.py) or the program in every task "
		          "(srun --ntasks-per-node=GPUS python train.py); "
		          "DIST_TORCHRUN_PER_TASK=1 allows it",
		          w->size, w->nnodes);
	return EXIT_USAGE;
}

/* The launcher form: an Open MPI line asking for more processes than the
 * step's slots is refused before mpirun starts its daemons. Decided alike
 * on every task (same line, same node table), so all stop. */
static int refuse_launch_beyond_slots(const struct task *t)
{
	struct dist_err err = {{0}};

	if (!t->cli.launcher || dist_launch_line_check(t->cli.cmd, &t->world, &err) == 0)
		return 0;
	if (t->world.rank == 0)
		msg_error("%s", err.msg);
	return EXIT_USAGE;
}

/* A container runtime told to drop the contract's variables, or to hide
 * the step's files under a /tmp of its own, would start the program
 * without them: alone, and saying nothing. Decided alike on every task
 * (same line, same contract), so all stop. With --explain, rank 0 says
 * which container path the step takes. */
static int refuse_runtime_without_contract(const struct task *t)
{
	/* What a program reads of the contract, whichever was set. */
	static const char *const contract[] = {
	        "MASTER_ADDR", "RANK",      "WORLD_SIZE",      "LOCAL_RANK",
	        "MASTER_PORT", "TF_CONFIG", "RANK_TABLE_FILE", "OMPI_MCA_orte_default_hostfile",
	};
	const char *names[sizeof(contract) / sizeof(contract[0])];
	bool needs_files = t->plan.mode->build_files != NULL;
	struct dist_runtime_line line;
	struct dist_err err = {{0}};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(contract) / sizeof(contract[0]); i++)
		if (getenv(contract[i]))
			names[n++] = contract[i];
	dist_runtime_read(t->cli.cmd, names, n, t->world.step_dir, &line);
	if (dist_runtime_check(&line, t->world.step_dir, needs_files, &err) == 0) {
		if (t->cli.explain && t->world.rank == 0) {
			char path[256];

			dist_runtime_describe(&line, needs_files, path, sizeof(path));
			if (carried_active() && !line.runtime)
				snprintf(path, sizeof(path),
				         "entered by a plugin before the task started (pyxis or "
				         "alike): the node's shim carried in, the contract in the "
				         "program's environment, the step's directory in the "
				         "container's own /tmp");
			msg_info("container: %s", path);
		}
		return 0;
	}
	if (t->world.rank == 0)
		msg_error("%s", err.msg);
	return EXIT_USAGE;
}

/* Rank 0 runs the launcher and relays its status, authenticated, on the
 * port the exchange published (or, without one, that every task computes
 * alike); the other tasks wait for it. */
static int run_launcher_form(struct task *t)
{
	const struct dist_world *w = &t->world;
	struct dist_err err = {{0}};
	struct dist_port_range ports;
	int status = -1;

	if (dist_port_range_parse(t->cli.port_range, &ports, &err) == 0 &&
	    relay_params_without_exchange(&ports, w, &t->relay, &err) == 0) {
		cli_clear_env();
		if (w->rank == 0)
			status = relay_run_launcher(&t->relay, w, t->path, t->argv, &err);
		else
			status = relay_wait(&t->relay, w, t->cli.timeout_s, &err);
	}
	if (status < 0) {
		msg_error("%s", err.msg);
		return EXIT_WIREUP;
	}
	return status;
}

/* Returns only when the exec failed, with a shell's exit code. */
static int exec_program(const struct task *t)
{
	struct dist_err err = {{0}};
	int rc;

	cli_clear_env();
	rc = launch_exec(t->path, t->argv, &err);
	msg_error("%s", err.msg);
	return rc;
}

int task_run(struct task *t)
{
	int rc = plan_make(&t->cli, &t->plan);

	if (rc)
		return rc;
	/* Found before the exchange, so that a program missing on one node
	 * stops every task instead of leaving the others waiting for it. */
	t->failure_rc = launch_resolve(t->cli.cmd[0], &t->path, &t->failure);
	t->argv = t->cli.cmd;
	if (!t->plan.mode) {
		if (t->failure_rc)
			msg_error("%s", t->failure.msg);
		return t->failure_rc ? t->failure_rc : exec_program(t);
	}
	rc = task_prepare(t);
	if (!rc)
		rc = refuse_torchrun_per_task(t);
	if (!rc)
		rc = refuse_launch_beyond_slots(t);
	if (!rc)
		rc = refuse_runtime_without_contract(t);
	if (rc)
		return rc;
	t->argv = plan_full_argv(t->cli.cmd, &t->plan);
	if (!t->argv) {
		msg_error("out of memory");
		return EXIT_WIREUP;
	}
	if (t->cli.launcher)
		return run_launcher_form(t);
	errfile_watch_start();
	return exec_program(t);
}
