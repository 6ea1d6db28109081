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

/* Bounds the whole wire-up, whatever a library call does with its own timeout. */
static void arm_watchdog(unsigned timeout_s)
{
	signal(SIGALRM, on_watchdog);
	alarm(timeout_s + 10);
}

static int fail_wireup(const struct dist_err *err)
{
	msg_error("%s", err->msg);
	wireup_pmix_abort(err->msg);
	return EXIT_WIREUP;
}

static int build_request(const struct cli *cli, struct wireup_request *req, struct dist_err *err)
{
	if (dist_port_range_parse(cli->port_range, &req->ports, err))
		return -1;
	req->timeout_s = cli->timeout_s;
	req->user_master_addr = getenv("MASTER_ADDR");
	req->user_master_port = getenv("MASTER_PORT");
	return 0;
}

static int wire_up(const struct cli *cli, struct dist_world *w, struct dist_err *err)
{
	struct wireup_request req;

	if (build_request(cli, &req, err))
		return -1;
	if (wireup_pmix_available())
		return wireup_pmix(&req, w, err);
	if (wireup_slurm_available())
		return wireup_slurm(&req, w, err);
	return dist_err_set(err,
	                    "not inside a Slurm step or PMIx launch: run under srun (e.g. srun "
	                    "--mpi=pmix dist-shim ...)");
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

static int run_mode(const struct cli *cli, const struct dist_mode *mode)
{
	struct dist_world world = {0};
	struct dist_err err = {{0}};

	arm_watchdog(cli->timeout_s);
	if (wire_up(cli, &world, &err))
		return fail_wireup(&err);
	msg_set_rank(world.rank);
	if (export_contract(mode, &world, &err))
		return fail_wireup(&err);
	alarm(0);
	wireup_pmix_finalize();
	return 0;
}

int main(int argc, char **argv)
{
	const struct dist_mode *mode = NULL;
	struct dist_err err = {{0}};
	struct cli cli;
	char *path;
	int rc;

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
	if (!cli.mode) {
		msg_error("no mode given: pass --mode %s (or --dist-mode to srun)",
		          dist_mode_choices());
		return EXIT_USAGE;
	}
	if (dist_mode_validate(cli.mode, &err)) {
		msg_error("%s", err.msg);
		return EXIT_USAGE;
	}
	/* A program that cannot start is found before anyone waits for this task. */
	rc = launch_resolve(cli.cmd[0], &path, &err);
	if (rc) {
		msg_error("%s", err.msg);
		wireup_pmix_abort(err.msg);
		return rc;
	}
	if (dist_mode_lookup(cli.mode, &mode) == DIST_MODE_AVAILABLE) {
		rc = run_mode(&cli, mode);
		if (rc)
			return rc;
	}
	cli_clear_env();
	rc = launch_exec(path, cli.cmd, &err);
	msg_error("%s", err.msg);
	return rc;
}
