/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dist-shim: runs as the user in each task of a step, sets up the contract
 * of the chosen mode, and execs the user's program in its own place. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/module.h"
#include "base/msg.h"
#include "bind/bind.h"
#include "cli.h"
#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "launch.h"
#include "node/stepdir.h"
#include "node/stepids.h"
#include "relay/relay.h"
#include "report.h"
#include "wireup/npu_local.h"
#include "wireup/transport.h"
#include "wireup/wireup.h"

#define EXIT_USAGE  2
#define EXIT_WIREUP 1

/* The launcher form's relay: set up by the exchange when there is one. */
static struct relay_params launcher_relay = RELAY_PARAMS_INIT;

/* What the task is to become: a mode's contract and the profiles on top. */
struct plan {
	const struct dist_mode *mode; /* NULL for "none" */
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	size_t nprofiles;
	struct dist_roles roles; /* --ps, --chief, --evaluator */
	char **extra_args;       /* appended to the program's arguments by profiles */
	size_t nextra;
};

static bool plan_needs_nodes(const struct plan *plan)
{
	bool needs = plan->mode->needs_nodes;

	for (size_t i = 0; i < plan->nprofiles; i++)
		needs = needs || dist_profile_needs_nodes(plan->profiles[i]);
	return needs;
}

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
static int build_request(const struct cli *cli, const struct plan *plan, struct wireup_request *req,
                         struct dist_port_range *hccl, struct dist_err *err)
{
	struct dist_port_range range;

	req->timeout_s = cli->timeout_s;
	req->user_master_addr = getenv("MASTER_ADDR");
	req->user_master_port = getenv("MASTER_PORT");
	/* The launcher relay accepts only the step's nodes. */
	req->needs_nodes = plan_needs_nodes(plan) || cli->launcher || cli->check.net;
	req->relay = cli->launcher ? &launcher_relay : NULL;
	req->check = &cli->check;
	req->explain = cli->explain;
	req->needs_tasks = plan->mode->needs_tasks;
	req->node_extra = plan->mode->needs_npus ? npu_node_extra : NULL;
	req->ports.lo = req->ports.hi = 0;
	hccl->lo = hccl->hi = 0;
	if (dist_port_range_parse(cli->port_range, &range, err))
		return -1;
	/* HCCL's block and every port picked here are disjoint by construction. */
	if (plan->mode->needs_npus)
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

/* LOCAL_FAILURE: why this task cannot start, or NULL. SHARE: the node's
 * step directory, when open. */
static enum wireup_result wire_up(const struct cli *cli, const struct plan *plan,
                                  const struct stepdir *share, const char *local_failure,
                                  struct dist_world *w, struct dist_err *err)
{
	struct wireup_request req;
	struct dist_port_range hccl;
	struct dist_err bad_request = {{0}};
	enum wireup_pmi pmi = wireup_pmi_of_step();

	if (build_request(cli, plan, &req, &hccl, &bad_request) && !local_failure)
		local_failure = bad_request.msg;
	req.share = share;
	w->roles = plan->roles;
	w->npu_isolate = cli->npu_isolate;
	w->hccl_base_port = plan->mode->needs_npus ? npu_hccl_base_port(&hccl) : 0;
	if (shim_exchanges(pmi, plan->mode))
		return wireup_exchange(pmi, &req, local_failure, w, err);
	if (!local_failure && (req.needs_tasks || req.node_extra)) {
		snprintf(bad_request.msg, sizeof(bad_request.msg),
		         "--dist-mode=%s gathers what every node finds for it (ports, devices), "
		         "which only PMIx or PMI2 can carry: launch with --mpi=pmix or "
		         "--mpi=pmi2",
		         plan->mode->name);
		local_failure = bad_request.msg;
	}
	if (!local_failure && cli->check.net) {
		no_check_without_exchange(pmi, plan->mode, &bad_request);
		local_failure = bad_request.msg;
	}
	if (local_failure) {
		/* No exchange to tell the others through: only this task stops,
		 * unless the step's PMI can end the step for it. */
		snprintf(err->msg, sizeof(err->msg), "%s", local_failure);
		return pmi != WIREUP_PMI_NONE ? WIREUP_FAILED_UNSHARED : WIREUP_FAILED;
	}
	if (wireup_slurm_available())
		return wireup_slurm(&req, w, err) ? WIREUP_FAILED : WIREUP_OK;
	dist_err_set(err, "not inside a Slurm step or PMIx launch: run under srun (e.g. srun "
	                  "--mpi=pmix or --mpi=pmi2 dist-shim ...)");
	return WIREUP_FAILED;
}

/* Exports the mode's contract with the profiles' variables over it, and
 * collects the arguments profiles append to the program's. */
static int export_contract(struct plan *plan, const struct dist_world *w, struct dist_err *err)
{
	struct dist_env env;
	int rc;

	dist_env_init(&env);
	rc = dist_contract_env(plan->mode, plan->profiles, plan->nprofiles, w, &env, err);
	if (rc == 0)
		rc = dist_env_export(&env, err);
	dist_env_free(&env);
	if (rc == 0)
		rc = dist_profiles_build_args(plan->profiles, plan->nprofiles, w, &plan->extra_args,
		                              &plan->nextra, err);
	for (size_t i = 0; rc == 0 && i < plan->nextra; i++)
		rc = dist_exec_string_fits("an argument a profile adds",
		                           strlen(plan->extra_args[i]), err);
	return rc;
}

/* Prints why the program will not start; only rank 0 repeats a peer's
 * failure, so the output has one line per cause, not one per task. */
static void report(enum wireup_result result, const struct dist_world *w,
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
	/* mpirun inside an allocation starts its daemons with srun, which must
	 * be allowed to share the nodes with this step. */
	if (setenv("SLURM_OVERLAP", "1", 0) != 0)
		return dist_err_set(err, "cannot set SLURM_OVERLAP");
	return 0;
}

/* Rank 0 runs the launcher and relays its status, authenticated, on the
 * port the exchange published (or, without one, that every task computes
 * alike); the other tasks wait for it. */
static int run_launcher_form(const struct cli *cli, const struct dist_world *w, const char *path,
                             char **argv)
{
	struct dist_err err = {{0}};
	struct dist_port_range ports;
	int status = -1;

	if (dist_port_range_parse(cli->port_range, &ports, &err) == 0 &&
	    relay_params_without_exchange(&ports, w, &launcher_relay, &err) == 0) {
		cli_clear_env();
		if (w->rank == 0)
			status = relay_run_launcher(&launcher_relay, w, path, argv, &err);
		else
			status = relay_wait(&launcher_relay, w, cli->timeout_s, &err);
	}
	if (status < 0) {
		msg_error("%s", err.msg);
		return EXIT_WIREUP;
	}
	return status;
}

/* The launcher form is not bound: the launcher's processes would all
 * inherit its share. */
static bool binds(const struct cli *cli)
{
	return cli->bind != DIST_BIND_NONE && !cli->launcher;
}

/* Binding is an optimisation: when it cannot be done the task still runs,
 * unbound, and says so. SHARE (when open) is where the node's tasks share
 * one topology discovery. */
static void bind(const struct cli *cli, const struct dist_world *w, const struct stepdir *share)
{
	struct dist_err err = {{0}};

	if (binds(cli) && bind_task(w, share->fd >= 0 ? share : NULL, cli->explain, &err))
		fprintf(stderr, "dist-shim: warning: not binding this task: %s\n", err.msg);
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
static int place_files(const struct plan *plan, const struct dist_world *w,
                       const struct stepdir *dir, unsigned timeout_s, struct dist_err *err)
{
	struct dist_files files = {.count = 0};
	int rc;

	if (!plan->mode->build_files)
		return 0;
	rc = plan->mode->build_files(w, &files, err);
	for (size_t i = 0; rc == 0 && i < files.count; i++)
		rc = w->local_rank == 0
		             ? stepdir_write(dir, files.f[i].name, files.f[i].content, err)
		             : stepdir_wait(dir, files.f[i].name, timeout_s, err);
	dist_files_free(&files);
	return rc;
}

/* Wires up, exports the plan's contract and places its files. FAILURE_RC
 * is this task's own reason not to start (0 if none), which the other tasks
 * learn too. */
static int prepare(const struct cli *cli, struct plan *plan, int failure_rc,
                   const struct dist_err *failure, struct dist_world *out)
{
	struct dist_world world = {0};
	struct dist_err err = {{0}}, dir_err = {{0}};
	/* Static: the world handed back points at its path. */
	static struct stepdir dir = {.fd = -1};
	const char *local_failure = failure_rc ? failure->msg : NULL;
	enum wireup_result result;

	arm_watchdog(cli->timeout_s + (cli->check.net ? cli->check.timeout_s : 0));
	if (!local_failure && open_step_dir(plan, &dir, &dir_err)) {
		local_failure = dir_err.msg;
		failure_rc = EXIT_WIREUP;
	}
	result = wire_up(cli, plan, dir.fd >= 0 ? &dir : NULL, local_failure, &world, &err);
	if (dir.fd >= 0)
		world.step_dir = dir.path;
	wireup_attempt(&world);
	world.launcher = cli->launcher;
	if (plan->mode->program_uses_pmi) {
		world.ompi = launch_probe_ompi();
		world.step_has_pmix = wireup_pmi_of_step() == WIREUP_PMI_PMIX;
	}
	if (result == WIREUP_OK && cli->launcher && check_launcher_form(&world, &err))
		result = WIREUP_FAILED;
	if (result == WIREUP_OK && export_contract(plan, &world, &err))
		result = WIREUP_FAILED;
	if (result == WIREUP_OK)
		bind(cli, &world, &dir);
	/* After the fence, a failure here is this task's alone. */
	if (result == WIREUP_OK && place_files(plan, &world, &dir, cli->timeout_s, &err))
		result = WIREUP_FAILED_UNSHARED;
	if (dir.fd >= 0)
		close(dir.fd);
	dir.fd = -1;
	if (result != WIREUP_OK) {
		report(result, &world, &err);
		return failure_rc ? failure_rc : EXIT_WIREUP;
	}
	alarm(0);
	wireup_finalize();
	*out = world;
	return 0;
}

/* torchrun in several tasks of a node: each task's torchrun starts its
 * own workers (--ntasks-per-node=8 torchrun --nproc_per_node=8: 64
 * processes for 8 GPUs) and PET_NNODES counts nodes, not tasks. Decided
 * alike on every task (some node has more than one task), so all stop. */
static int refuse_torchrun_per_task(const struct cli *cli, const struct dist_world *w)
{
	const char *allow = getenv("DIST_TORCHRUN_PER_TASK");

	if (w->size <= w->nnodes || !dist_is_torch_launcher(cli->cmd) ||
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

static int make_plan(const struct cli *cli, struct plan *plan)
{
	struct dist_err err = {{0}};

	memset(plan, 0, sizeof(*plan));
	if (!cli->mode) {
		msg_error("no mode given: pass --mode %s (or --dist-mode to srun)",
		          dist_mode_choices());
		return EXIT_USAGE;
	}
	if (dist_mode_validate(cli->mode, &err) ||
	    (cli->compat &&
	     dist_profiles_parse(cli->compat, plan->profiles, &plan->nprofiles, &err))) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	dist_mode_lookup(cli->mode, &plan->mode);
	if (plan->mode &&
	    dist_profiles_select_mode(plan->profiles, plan->nprofiles, cli->mode, &err)) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	plan->roles = cli->roles;
	return 0;
}

/* The program's arguments followed by those the profiles add; NULL when out
 * of memory. */
static char **full_argv(char **cmd, const struct plan *plan)
{
	size_t n = 0;
	char **argv;

	while (cmd[n])
		n++;
	if (plan->nextra == 0)
		return cmd;
	argv = calloc(n + plan->nextra + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	memcpy(argv, cmd, n * sizeof(*argv));
	memcpy(argv + n, plan->extra_args, plan->nextra * sizeof(*argv));
	return argv;
}

static int run(struct cli *cli)
{
	struct dist_err err = {{0}};
	struct plan plan;
	char *path = NULL, **argv = cli->cmd;
	int rc = make_plan(cli, &plan);

	if (rc)
		return rc;
	/* Found before the exchange, so that a program missing on one node
	 * stops every task instead of leaving the others waiting for it. */
	rc = launch_resolve(cli->cmd[0], &path, &err);
	if (plan.mode) {
		struct dist_world world;
		int prc = prepare(cli, &plan, rc, &err, &world);

		if (prc)
			return prc;
		prc = refuse_torchrun_per_task(cli, &world);
		if (prc)
			return prc;
		argv = full_argv(cli->cmd, &plan);
		if (!argv) {
			msg_error("out of memory");
			return EXIT_WIREUP;
		}
		if (cli->launcher)
			return run_launcher_form(cli, &world, path, argv);
		report_arm();
	} else if (rc) {
		msg_error("%s", err.msg);
		return rc;
	}
	cli_clear_env();
	rc = launch_exec(path, argv, &err);
	msg_error("%s", err.msg);
	return rc;
}

/* --doctor, from its module: it needs every library the others load. */
static int doctor(const char *port_range)
{
	struct dist_err err = {{0}};
	const struct doctor_module *m = module_get(MODULE_DOCTOR, &err);

	if (!m) {
		msg_error("%s", err.msg);
		return 1;
	}
	return m->run(port_range);
}

int main(int argc, char **argv)
{
	struct dist_err err = {{0}};
	struct cli cli;

	if (cli_parse(argc, argv, &cli, &err)) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	if (cli.action == CLI_HELP) {
		cli_usage();
		return 0;
	}
	if (cli.action == CLI_VERSION) {
		printf("dist-shim: %s\n", DIST_VERSION_LINE);
		return 0;
	}
	if (cli.action == CLI_DOCTOR)
		return doctor(cli.port_range);
	if (cli.action == CLI_EXPLAIN_NODE) {
		if (bind_explain_node(cli.topology,
		                      cli.gpus ? cli.gpus : getenv("CUDA_VISIBLE_DEVICES"),
		                      cli.tasks, &err)) {
			msg_error("%s", err.msg);
			return EXIT_WIREUP;
		}
		return 0;
	}
	return run(&cli);
}
