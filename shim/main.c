/* dist-shim: runs as the user in each task of a step, sets up the contract
 * of the chosen mode, and execs the user's program in its own place. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "dist_mode.h"
#include "launch.h"
#include "msg.h"
#include "wireup.h"

#define EXIT_USAGE  2
#define EXIT_WIREUP 1

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
static int build_request(const struct cli *cli, const struct dist_mode *mode,
                         struct wireup_request *req, struct dist_err *err)
{
	req->timeout_s = cli->timeout_s;
	req->user_master_addr = getenv("MASTER_ADDR");
	req->user_master_port = getenv("MASTER_PORT");
	req->needs_nodes = mode->needs_nodes;
	req->ports.lo = req->ports.hi = 0;
	return dist_port_range_parse(cli->port_range, &req->ports, err);
}

/* LOCAL_FAILURE: why this task cannot start, or NULL. */
static enum wireup_result wire_up(const struct cli *cli, const struct dist_mode *mode,
                                  const char *local_failure, struct dist_world *w,
                                  struct dist_err *err)
{
	struct wireup_request req;
	struct dist_err bad_request = {{0}};

	if (build_request(cli, mode, &req, &bad_request) && !local_failure)
		local_failure = bad_request.msg;
	if (wireup_pmix_available())
		return wireup_pmix(&req, local_failure, w, err);
	if (local_failure) {
		/* No exchange to tell the others through: only this task stops. */
		snprintf(err->msg, sizeof(err->msg), "%s", local_failure);
		return WIREUP_FAILED;
	}
	if (wireup_slurm_available())
		return wireup_slurm(&req, w, err) ? WIREUP_FAILED : WIREUP_OK;
	dist_err_set(err, "not inside a Slurm step or PMIx launch: run under srun (e.g. srun "
	                  "--mpi=pmix dist-shim ...)");
	return WIREUP_FAILED;
}

static int export_contract(const struct dist_mode *mode, const struct dist_world *w,
                           struct dist_err *err)
{
	struct dist_env env;
	int rc;

	dist_env_init(&env);
	rc = mode->build_env(w, &env, err);
	if (rc == 0)
		rc = dist_env_export(&env, err);
	dist_env_free(&env);
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
		wireup_pmix_abort(err->msg);
}

/* Wires up and exports MODE's contract; FAILURE_RC is this task's own
 * reason not to start (0 if none), which the other tasks learn too. */
static int prepare(const struct cli *cli, const struct dist_mode *mode, int failure_rc,
                   const struct dist_err *failure)
{
	struct dist_world world = {0};
	struct dist_err err = {{0}};
	enum wireup_result result;

	arm_watchdog(cli->timeout_s);
	result = wire_up(cli, mode, failure_rc ? failure->msg : NULL, &world, &err);
	if (result == WIREUP_OK && export_contract(mode, &world, &err))
		result = WIREUP_FAILED;
	if (result != WIREUP_OK) {
		report(result, &world, &err);
		return failure_rc ? failure_rc : EXIT_WIREUP;
	}
	alarm(0);
	wireup_pmix_finalize();
	return 0;
}

static int check_mode(const struct cli *cli, const struct dist_mode **mode)
{
	struct dist_err err = {{0}};

	if (!cli->mode) {
		msg_error("no mode given: pass --mode %s (or --dist-mode to srun)",
		          dist_mode_choices());
		return EXIT_USAGE;
	}
	if (dist_mode_validate(cli->mode, &err)) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	dist_mode_lookup(cli->mode, mode);
	return 0;
}

static int run(struct cli *cli)
{
	const struct dist_mode *mode = NULL;
	struct dist_err err = {{0}};
	char *path = NULL;
	int rc = check_mode(cli, &mode);

	if (rc)
		return rc;
	/* Found before the exchange, so that a program missing on one node
	 * stops every task instead of leaving the others waiting for it. */
	rc = launch_resolve(cli->cmd[0], &path, &err);
	if (mode) {
		int prc = prepare(cli, mode, rc, &err);

		if (prc)
			return prc;
	} else if (rc) {
		msg_error("%s", err.msg);
		return rc;
	}
	cli_clear_env();
	rc = launch_exec(path, cli->cmd, &err);
	msg_error("%s", err.msg);
	return rc;
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
		printf("dist-shim %s\n", DIST_VERSION);
		return 0;
	}
	return run(&cli);
}
