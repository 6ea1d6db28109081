/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The task before its program: the wire-up, then the contract, the binding
 * and the mode's files, or why the program will not start. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/carried.h"
#include "base/msg.h"
#include "bind/bind.h"
#include "dist_launch.h"
#include "launch.h"
#include "node/stepids.h"
#include "task.h"
#include "wireup/npu_local.h"
#include "wireup/transport.h"
#include "wireup/wireup.h"

static void on_watchdog(int sig)
{
	static const char text[] = "dist-shim: error: wire-up did not finish in time; giving up\n";

	(void)sig;
	/* Only async-signal-safe calls here. */
	(void)!write(STDERR_FILENO, text, sizeof(text) - 1);
	_exit(EXIT_WIREUP);
}

/* Last resort behind the fence's own timeout, for any call that hangs. */
static void arm_watchdog(unsigned timeout_s)
{
	signal(SIGALRM, on_watchdog);
	alarm(timeout_s + 10);
}

/* Fills REQ; every field is set even when the port range is invalid, since
 * a failing task still takes part in the exchange. */
static int build_request(struct task *t, struct wireup_request *req, struct dist_port_range *hccl,
                         struct dist_err *err)
{
	const struct cli *cli = &t->cli;
	const struct dist_mode *mode = t->plan.mode;
	struct dist_port_range range;

	req->timeout_s = cli->timeout_s;
	req->user_master_addr = carried_user_getenv("MASTER_ADDR");
	req->user_master_port = carried_user_getenv("MASTER_PORT");
	/* The launcher relay accepts only the step's nodes. */
	req->needs_nodes = plan_needs_nodes(&t->plan) || cli->launcher || cli->check.net;
	req->relay = cli->launcher ? &t->relay : NULL;
	req->check = &cli->check;
	req->explain = cli->explain;
	req->needs_tasks = mode->needs_tasks;
	req->node_extra = mode->needs_npus ? npu_node_extra : NULL;
	req->ports.lo = req->ports.hi = 0;
	hccl->lo = hccl->hi = 0;
	if (dist_port_range_parse(cli->port_range, &range, err))
		return -1;
	/* HCCL's block and every port picked here are disjoint by construction. */
	if (mode->needs_npus)
		return dist_port_split_hccl(&range, &req->ports, hccl, err);
	req->ports = range;
	return 0;
}

/* Whether the shim runs the exchange through the step's PMI. A program that does its own
 * PMI (mode mpi) needs the step's PMI after the shim: the shim leaves it
 * alone unless it is a PMIx server that lets the program connect after the
 * shim finalized (PMIx 5+, which the server announces in PMIX_VERSION:
 * dist_pmix_shareable). A PMI2 connection the shim finalized is gone. */
static bool shim_exchanges(enum wireup_pmi pmi, const struct dist_mode *mode)
{
	if (pmi == WIREUP_PMI_NONE)
		return false;
	if (!mode->program_uses_pmi)
		return true;
	return pmi == WIREUP_PMI_PMIX && dist_pmix_shareable(getenv("PMIX_VERSION"));
}

/* Why --check net cannot run: it gathers every node's result through the
 * shim's exchange, which this step does not give it. */
static void no_check_without_exchange(enum wireup_pmi pmi, const struct dist_mode *mode,
                                      struct dist_err *why)
{
	if (pmi == WIREUP_PMI_NONE)
		dist_err_set(why, "--dist-check=net gathers every node's result through PMIx or "
		                  "PMI2: launch with --mpi=pmix or --mpi=pmi2");
	else
		dist_err_set(why,
		             "--dist-check=net needs the step's %s, which --dist-mode=%s leaves "
		             "to the program here; check with a --dist-mode=ddp step first",
		             wireup_pmi_name(pmi), mode->name);
}

/* Without the shim's exchange: Slurm's own view of the step, or, with no
 * exchange to tell the others through, this task stopping alone (unless
 * the step's PMI can end the step for it). */
static enum wireup_result wire_up_alone(struct task *t, enum wireup_pmi pmi,
                                        const struct wireup_request *req, const char *local_failure,
                                        struct dist_err *err)
{
	struct dist_err why = {{0}};

	if (!local_failure && (req->needs_tasks || req->node_extra)) {
		snprintf(why.msg, sizeof(why.msg),
		         "--dist-mode=%s gathers what every node finds for it (ports, devices), "
		         "which only PMIx or PMI2 can carry: launch with --mpi=pmix or "
		         "--mpi=pmi2",
		         t->plan.mode->name);
		local_failure = why.msg;
	}
	if (!local_failure && t->cli.check.net) {
		no_check_without_exchange(pmi, t->plan.mode, &why);
		local_failure = why.msg;
	}
	if (local_failure) {
		snprintf(err->msg, sizeof(err->msg), "%s", local_failure);
		return pmi != WIREUP_PMI_NONE ? WIREUP_FAILED_UNSHARED : WIREUP_FAILED;
	}
	if (wireup_slurm_available())
		return wireup_slurm(req, &t->world, err) ? WIREUP_FAILED : WIREUP_OK;
	dist_err_set(err, "not inside a Slurm step or PMIx launch: run under srun (e.g. srun "
	                  "--mpi=pmix or --mpi=pmi2 dist-shim ...)");
	return WIREUP_FAILED;
}

/* LOCAL_FAILURE: why this task cannot start, or NULL. The node's step
 * directory, when open, is where its tasks share what they read. */
static enum wireup_result wire_up(struct task *t, const char *local_failure, struct dist_err *err)
{
	struct wireup_request req;
	struct dist_port_range hccl;
	struct dist_err bad_request = {{0}};
	const struct dist_mode *mode = t->plan.mode;
	struct dist_world *w = &t->world;
	enum wireup_pmi pmi = wireup_pmi_of_step();

	if (build_request(t, &req, &hccl, &bad_request) && !local_failure)
		local_failure = bad_request.msg;
	req.share = t->dir.fd >= 0 ? &t->dir : NULL;
	w->roles = t->plan.roles;
	w->npu_isolate = t->cli.npu_isolate;
	w->hccl_base_port = mode->needs_npus ? npu_hccl_base_port(&hccl) : 0;
	if (shim_exchanges(pmi, mode))
		return wireup_exchange(pmi, &req, local_failure, w, err);
	return wire_up_alone(t, pmi, &req, local_failure, err);
}

/* Says why the program will not start, and ends the step where the others
 * cannot learn it otherwise; only rank 0 repeats a peer's failure, so the
 * output has one line per cause, not one per task. */
static void announce_failure(enum wireup_result result, const struct dist_world *w,
                             const struct dist_err *err)
{
	if (result == WIREUP_PEER_FAILED && w->rank != 0)
		return;
	msg_error("%s", err->msg);
	if (result == WIREUP_TIMED_OUT || result == WIREUP_FAILED_UNSHARED)
		wireup_abort(err->msg);
}

/* The launcher form runs one launcher per node, rank 0's: refused, on every
 * task alike, for any other layout. */
static int check_launcher_form(const struct dist_world *w, struct dist_err *err)
{
	if (w->size != w->nnodes)
		return dist_err_set(
		        err,
		        "--dist-launcher needs one task per node (%u tasks on %u nodes); "
		        "use --ntasks-per-node=1",
		        w->size, w->nnodes);
	return 0;
}

/* What mpirun inside the allocation reads of Slurm's variables, made true
 * for the launcher step (docs/mpi.md, "Slots inside Slurm"). */
static int set_launcher_slurm_env(struct dist_err *err)
{
	const char *step_nodes = getenv("SLURM_STEP_NODELIST");
	const char *dist = getenv("SLURM_DISTRIBUTION");

	/* mpirun starts its daemons with srun, which must be allowed to share
	 * the nodes with this step. */
	if (setenv("SLURM_OVERLAP", "1", 0) != 0)
		return dist_err_set(err, "cannot set SLURM_OVERLAP");
	/* mpirun takes its nodes from SLURM_NODELIST, the job's, and their
	 * slots from SLURM_TASKS_PER_NODE, the step's (mode mpi): the two must
	 * list the same nodes when the step has fewer than the job. */
	if (step_nodes && setenv("SLURM_NODELIST", step_nodes, 1) != 0)
		return dist_err_set(err, "cannot set SLURM_NODELIST");
	/* The step's --distribution=arbitrary would reach the srun that starts
	 * the daemons, one a node: Slurm 24.11 and later then refuse its
	 * --nodes, even for `srun --version`, which PRRTE runs first. */
	if (dist && strncmp(dist, "arbitrary", strlen("arbitrary")) == 0)
		unsetenv("SLURM_DISTRIBUTION");
	return 0;
}

/* Binding is an optimisation: when it cannot be done the task still runs,
 * unbound, and says so. The launcher form is not bound: the launcher's
 * processes would all inherit its share. The node's tasks share one
 * topology discovery through the step directory, when open. */
static void bind_or_warn(const struct task *t)
{
	struct dist_err err = {{0}};

	if (t->cli.bind == DIST_BIND_NONE || t->cli.launcher)
		return;
	if (bind_task(&t->world, t->dir.fd >= 0 ? &t->dir : NULL, t->cli.slurm, t->cli.explain,
	              &err))
		msg_warn("not binding this task: %s", err.msg);
}

/* Opens the step's private directory, once, for the mode's files (which
 * cannot do without it), binding and @record's error files (which can). */
static int open_step_dir(const struct plan *plan, struct stepdir *dir, struct dist_err *err)
{
	uint32_t jobid, stepid;
	struct dist_err ignored;

	(void)stepids_read(&jobid, &stepid, NULL);
	if (plan->mode->build_files)
		return stepdir_open(jobid, stepid, dir, err);
	if (stepdir_open(jobid, stepid, dir, &ignored))
		dir->fd = -1;
	return 0;
}

/* The node's first task writes the mode's files; the others wait for them,
 * so that the program finds them whichever task it runs in. */
static int place_files(const struct task *t, struct dist_err *err)
{
	const struct dist_world *w = &t->world;
	struct dist_files files = {.count = 0};
	int rc;

	if (!t->plan.mode->build_files)
		return 0;
	rc = t->plan.mode->build_files(w, &files, err);
	for (size_t i = 0; rc == 0 && i < files.count; i++)
		rc = w->local_rank == 0
		             ? stepdir_write(&t->dir, files.f[i].name, files.f[i].content, err)
		             : stepdir_wait(&t->dir, files.f[i].name, t->cli.timeout_s, err);
	dist_files_free(&files);
	return rc;
}

/* What the world carries besides the wire-up's findings. */
static void complete_world(struct task *t)
{
	struct dist_world *w = &t->world;

	if (t->dir.fd >= 0)
		w->step_dir = t->dir.path;
	wireup_attempt(w);
	w->launcher = t->cli.launcher;
	if (t->plan.mode->program_uses_pmi) {
		w->ompi = launch_probe_ompi();
		w->step_has_pmix = wireup_pmi_of_step() == WIREUP_PMI_PMIX;
	}
}

/* Slurm's names of the nodes, for a mode whose hostfiles launchers inside
 * the allocation read (they accept only those names). Only the node's
 * first task writes the files (place_files), so only it loads libslurm.
 * Without the names the hostfiles list addresses, as outside Slurm. */
static void name_nodes(struct task *t)
{
	struct dist_err err = {{0}};

	if (!t->plan.mode->names_nodes || t->world.local_rank != 0)
		return;
	if (wireup_slurm_node_names(&t->world, &t->node_names, &err))
		msg_warn("the hostfiles list addresses, not Slurm's node names: %s", err.msg);
	t->world.node_names = (const char *const *)t->node_names;
}

/* After a wire-up that worked: the contract, the binding, the files. */
static enum wireup_result set_up(struct task *t, struct dist_err *err)
{
	name_nodes(t);
	if (t->cli.launcher && (check_launcher_form(&t->world, err) || set_launcher_slurm_env(err)))
		return WIREUP_FAILED;
	if (plan_export_contract(&t->plan, &t->world, err))
		return WIREUP_FAILED;
	bind_or_warn(t);
	/* After the fence, a failure here is this task's alone. */
	if (place_files(t, err))
		return WIREUP_FAILED_UNSHARED;
	return WIREUP_OK;
}

int task_prepare(struct task *t)
{
	struct dist_err err = {{0}}, dir_err = {{0}};
	enum wireup_result result;

	arm_watchdog(t->cli.timeout_s + (t->cli.check.net ? t->cli.check.timeout_s : 0));
	if (!t->failure_rc && open_step_dir(&t->plan, &t->dir, &dir_err)) {
		t->failure = dir_err;
		t->failure_rc = EXIT_WIREUP;
	}
	result = wire_up(t, t->failure_rc ? t->failure.msg : NULL, &err);
	complete_world(t);
	if (result == WIREUP_OK)
		result = set_up(t, &err);
	if (t->dir.fd >= 0)
		close(t->dir.fd);
	t->dir.fd = -1;
	if (result != WIREUP_OK) {
		announce_failure(result, &t->world, &err);
		return t->failure_rc ? t->failure_rc : EXIT_WIREUP;
	}
	alarm(0);
	wireup_finalize();
	return 0;
}
