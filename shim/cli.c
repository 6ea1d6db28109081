/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_port.h"
#include "dist_profile.h"
#include "dist_slurmenv.h"

void cli_usage(void)
{
	printf("Usage: dist-shim [--mode MODE] [--compat LIST] [--port-range LO-HI]\n"
	       "                 [--timeout SECONDS] -- PROGRAM [ARGS...]\n"
	       "\n"
	       "Sets up the environment a distributed training framework expects for this task\n"
	       "of a Slurm step (or of any PMIx launch), then execs PROGRAM.\n"
	       "\n"
	       "  -m, --mode MODE          %s (default: $" DIST_SHIM_ENV_MODE ")\n"
	       "  -c, --compat LIST        platform profiles to add: %s,\n"
	       "                           comma-separated (default: $" DIST_SHIM_ENV_COMPAT ")\n"
	       "  -l, --launcher           one task per node; only rank 0 runs PROGRAM "
	       "(mpirun...),\n"
	       "                           the others wait and exit with its status\n"
	       "      --ps N, --chief, --evaluator\n"
	       "                           mode ps: parameter servers (default 1), a chief, an\n"
	       "                           evaluator; every other task is a worker\n"
	       "      --npu-isolate        mode ascend: each task sees only its own NPU\n"
	       "      --bind auto|none     bind each task to its GPU's CPUs and NIC (default "
	       "auto)\n"
	       "      --check net[:SECONDS] before PROGRAM starts, every node proves it reaches\n"
	       "                           the master's port and the next node (default %us)\n"
	       "      --explain            print each task's GPU, CPUs and NIC; without PROGRAM,\n"
	       "                           the plan for a whole node: [--topology XML]\n"
	       "                           [--gpus LIST] [--tasks N]\n"
	       "  -p, --port-range LO-HI   where MASTER_PORT is chosen (default %s)\n"
	       "  -t, --timeout SECONDS    bound on waiting for the other tasks (default %d)\n"
	       "      --doctor             check this node's Slurm, plugin and network for\n"
	       "                           slurm-dist (one line each); non-zero if wrong\n"
	       "  -h, --help               this text\n"
	       "  -V, --version            version, and the Slurm release built for\n"
	       "\n"
	       "Variables you export yourself (MASTER_PORT, GLOO_SOCKET_IFNAME...) are kept.\n"
	       "See dist-shim(1).\n",
	       dist_mode_choices(), dist_profile_choices(), DIST_CHECK_TIMEOUT_DEFAULT,
	       DIST_PORT_RANGE_DEFAULT, SHIM_TIMEOUT_DEFAULT);
}

static int parse_timeout(const char *text, unsigned *timeout_s, struct dist_err *err)
{
	uint32_t v;

	if (dist_parse_u32(text, &v) != 0 || v == 0 || v > 86400)
		return dist_err_set(err, "invalid timeout '%s': expected seconds, 1 to 86400",
		                    text);
	*timeout_s = v;
	return 0;
}

static void defaults_from_env(struct cli *cli)
{
	cli->action = CLI_RUN;
	cli->mode = getenv(DIST_SHIM_ENV_MODE);
	cli->port_range = getenv(DIST_SHIM_ENV_PORT_RANGE);
	cli->compat = getenv(DIST_SHIM_ENV_COMPAT);
	cli->launcher = getenv(DIST_SHIM_ENV_LAUNCHER) != NULL;
	cli->roles.ps = DIST_PS_DEFAULT;
	cli->roles.chief = getenv(DIST_SHIM_ENV_CHIEF) != NULL;
	cli->roles.evaluator = getenv(DIST_SHIM_ENV_EVALUATOR) != NULL;
	cli->npu_isolate = getenv(DIST_SHIM_ENV_NPU_ISOLATE) != NULL;
	cli->bind = DIST_BIND_AUTO;
	cli->explain = getenv(DIST_SHIM_ENV_EXPLAIN) != NULL;
	cli->check.net = false;
	cli->check.timeout_s = DIST_CHECK_TIMEOUT_DEFAULT;
	cli->topology = NULL;
	cli->gpus = NULL;
	cli->tasks = 1;
	if (!cli->port_range)
		cli->port_range = DIST_PORT_RANGE_DEFAULT;
	cli->timeout_s = SHIM_TIMEOUT_DEFAULT;
	cli->cmd = NULL;
	cli->argv0_copy = NULL;
}

/* Slurm 22.05 route: the plugin put the shim in argv[0] and the task's own
 * argv[0] in DIST_SHIM_ARGV0; argv[1..] are the user's, not ours to parse. */
static int parse_wrapped(char **argv, const char *argv0, struct cli *cli, struct dist_err *err)
{
	cli->argv0_copy = strdup(argv0);
	if (!cli->argv0_copy)
		return dist_err_set(err, "out of memory");
	argv[0] = cli->argv0_copy;
	cli->cmd = argv;
	return 0;
}

static int parse_options(int argc, char **argv, struct cli *cli, struct dist_err *err)
{
	static const struct option longopts[] = {
	        {"mode", required_argument, NULL, 'm'},
	        {"port-range", required_argument, NULL, 'p'},
	        {"timeout", required_argument, NULL, 't'},
	        {"compat", required_argument, NULL, 'c'},
	        {"launcher", no_argument, NULL, 'l'},
	        {"ps", required_argument, NULL, 's'},
	        {"chief", no_argument, NULL, 'C'},
	        {"evaluator", no_argument, NULL, 'E'},
	        {"npu-isolate", no_argument, NULL, 'I'},
	        {"bind", required_argument, NULL, 'b'},
	        {"explain", no_argument, NULL, 'x'},
	        {"check", required_argument, NULL, 'K'},
	        {"topology", required_argument, NULL, 'T'},
	        {"gpus", required_argument, NULL, 'G'},
	        {"tasks", required_argument, NULL, 'N'},
	        {"help", no_argument, NULL, 'h'},
	        {"version", no_argument, NULL, 'V'},
	        {"doctor", no_argument, NULL, 'D'},
	        {NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	optind = 1;
	/* '+': stop at the first non-option, which starts the user's command. */
	while ((c = getopt_long(argc, argv, "+m:p:t:c:ls:CEIb:xK:T:G:N:hV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'm':
			cli->mode = optarg;
			break;
		case 'p':
			cli->port_range = optarg;
			break;
		case 'c':
			cli->compat = optarg;
			break;
		case 'l':
			cli->launcher = true;
			break;
		case 's':
			if (dist_roles_parse_ps("--ps", optarg, &cli->roles.ps, err))
				return -1;
			break;
		case 'C':
			cli->roles.chief = true;
			break;
		case 'E':
			cli->roles.evaluator = true;
			break;
		case 'I':
			cli->npu_isolate = true;
			break;
		case 'b':
			if (dist_bind_policy_parse("--bind", optarg, &cli->bind, err))
				return -1;
			break;
		case 'x':
			cli->explain = true;
			break;
		case 'K':
			if (dist_check_parse("--check", optarg, &cli->check, err))
				return -1;
			break;
		case 'T':
			cli->topology = optarg;
			break;
		case 'G':
			cli->gpus = optarg;
			break;
		case 'N':
			if (dist_parse_u32(optarg, &cli->tasks) || cli->tasks == 0 ||
			    cli->tasks > 4096)
				return dist_err_set(err, "invalid --tasks '%s': expected 1 to 4096",
				                    optarg);
			break;
		case 't':
			if (parse_timeout(optarg, &cli->timeout_s, err) != 0)
				return -1;
			break;
		case 'h':
			cli->action = CLI_HELP;
			return 0;
		case 'V':
			cli->action = CLI_VERSION;
			return 0;
		case 'D':
			cli->action = CLI_DOCTOR;
			return 0;
		default:
			return dist_err_set(
			        err, "unknown or incomplete option '%s'; see dist-shim --help",
			        argv[optind - 1]);
		}
	}
	if (optind >= argc && cli->explain) {
		cli->action = CLI_EXPLAIN_NODE;
		return 0;
	}
	if (optind >= argc)
		return dist_err_set(err, "no program to run; usage: dist-shim [OPTIONS] -- PROGRAM "
		                         "[ARGS...]");
	cli->cmd = &argv[optind];
	return 0;
}

int cli_parse(int argc, char **argv, struct cli *cli, struct dist_err *err)
{
	/* Only the value the plugin made for this very process (a leftover
	 * never names our pid): it must not change what runs. */
	const char *argv0 = dist_handover_decode(getenv(DIST_SHIM_ENV_ARGV0), (long)getpid());
	const char *timeout = getenv(DIST_SHIM_ENV_TIMEOUT);

	defaults_from_env(cli);
	if (timeout && parse_timeout(timeout, &cli->timeout_s, err) != 0)
		return -1;
	/* Set by the plugin from its options: named as the user gave them. */
	if (getenv(DIST_SHIM_ENV_PS) &&
	    dist_roles_parse_ps("--dist-ps", getenv(DIST_SHIM_ENV_PS), &cli->roles.ps, err))
		return -1;
	if (getenv(DIST_SHIM_ENV_BIND) &&
	    dist_bind_policy_parse("--dist-bind", getenv(DIST_SHIM_ENV_BIND), &cli->bind, err))
		return -1;
	if (getenv(DIST_SHIM_ENV_CHECK) &&
	    dist_check_parse("--dist-check", getenv(DIST_SHIM_ENV_CHECK), &cli->check, err))
		return -1;
	if (argv0)
		return parse_wrapped(argv, argv0, cli, err);
	return parse_options(argc, argv, cli, err);
}

void cli_clear_env(void)
{
	static const char *const names[] = DIST_SHIM_ENV_ALL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unsetenv(names[i]);
}
