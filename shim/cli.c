/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_options.h"
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
	       "  -m, --mode MODE          %s (default: $" DIST_OPT_ENV(
	               MODE) ")\n"
	                     "  -c, --compat LIST        platform profiles to add: %s,\n"
	                     "                           comma-separated (default: $" DIST_OPT_ENV(
	                             COMPAT) ")\n"
	                                     "  -l, --launcher           one task per node; only "
	                                     "rank 0 runs PROGRAM "
	                                     "(mpirun...),\n"
	                                     "                           the others wait and exit "
	                                     "with its status\n"
	                                     "      --ps N, --chief, --evaluator\n"
	                                     "                           mode ps: parameter "
	                                     "servers (default 1), a chief, an\n"
	                                     "                           evaluator; every other "
	                                     "task is a worker\n"
	                                     "      --npu-isolate        mode ascend: each task "
	                                     "sees only its own NPU\n"
	                                     "      --bind auto|none     bind each task to its "
	                                     "GPU's CPUs and NIC (default "
	                                     "auto)\n"
	                                     "      --check net[:SECONDS] before PROGRAM starts, "
	                                     "every node proves it reaches\n"
	                                     "                           the master's port and the "
	                                     "next node (default %us)\n"
	                                     "      --explain            print each task's GPU, "
	                                     "CPUs and NIC, and the container\n"
	                                     "                           path; without PROGRAM,"
	                                     "\n"
	                                     "                           the plan for a whole "
	                                     "node: [--topology XML]\n"
	                                     "                           [--gpus LIST] [--tasks "
	                                     "N]\n"
	                                     "  -p, --port-range LO-HI   where MASTER_PORT is "
	                                     "chosen (default %s)\n"
	                                     "  -t, --timeout SECONDS    bound on waiting for the "
	                                     "other tasks (default %d)\n"
	                                     "      --doctor             check this node's Slurm, "
	                                     "plugin and network for\n"
	                                     "                           slurm-dist (one line "
	                                     "each); non-zero if wrong\n"
	                                     "  -h, --help               this text\n"
	                                     "  -V, --version            version, and the Slurm "
	                                     "release built for\n"
	                                     "\n"
	                                     "Variables you export yourself (MASTER_PORT, "
	                                     "GLOO_SOCKET_IFNAME...) are kept.\n"
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

/* What Slurm bound itself: CPUs at the user's request, from the plugin's
 * DIST_SHIM_USER_BIND ("cpu"; only srun's environment tells, see
 * spank/userbind.h); GPUs, from the step's SLURMD_TRES_BIND. */
static struct bind_slurm slurm_binds(void)
{
	const char *cpu = getenv(DIST_SHIM_ENV_USER_BIND);
	struct bind_slurm slurm = {.cpus = cpu && strcmp(cpu, "cpu") == 0};

	slurm.gpus = dist_slurm_gpu_bind(getenv("SLURMD_TRES_BIND"), &slurm.gpu_bind,
	                                 &slurm.gpu_bind_len);
	return slurm;
}

static void defaults(struct cli *cli)
{
	cli->action = CLI_RUN;
	cli->mode = NULL;
	cli->port_range = getenv(DIST_SHIM_ENV_PORT_RANGE);
	cli->compat = NULL;
	cli->launcher = false;
	cli->roles.ps = DIST_PS_DEFAULT;
	cli->roles.chief = false;
	cli->roles.evaluator = false;
	cli->npu_isolate = false;
	cli->bind = DIST_BIND_AUTO;
	cli->explain = false;
	cli->slurm = slurm_binds();
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

/* Each option's value into CLI (a flag's TEXT is ignored); OPTION names it
 * as the user gave it, for the message. One per row of dist_options.h. */
typedef int apply_fn(struct cli *cli, const char *option, const char *text, struct dist_err *err);

static int apply_MODE(struct cli *cli, const char *option, const char *text, struct dist_err *err)
{
	(void)option;
	(void)err;
	cli->mode = text;
	return 0;
}

static int apply_COMPAT(struct cli *cli, const char *option, const char *text, struct dist_err *err)
{
	(void)option;
	(void)err;
	cli->compat = text;
	return 0;
}

static int apply_PS(struct cli *cli, const char *option, const char *text, struct dist_err *err)
{
	return dist_roles_parse_ps(option, text, &cli->roles.ps, err);
}

static int apply_BIND(struct cli *cli, const char *option, const char *text, struct dist_err *err)
{
	return dist_bind_policy_parse(option, text, &cli->bind, err);
}

static int apply_CHECK(struct cli *cli, const char *option, const char *text, struct dist_err *err)
{
	return dist_check_parse(option, text, &cli->check, err);
}

/* A flag: set once given, whatever the text. */
#define APPLY_FLAG(id, field)                                                                      \
	static int apply_##id(struct cli *cli, const char *option, const char *text,               \
	                      struct dist_err *err)                                                \
	{                                                                                          \
		(void)option;                                                                      \
		(void)text;                                                                        \
		(void)err;                                                                         \
		cli->field = true;                                                                 \
		return 0;                                                                          \
	}
APPLY_FLAG(LAUNCHER, launcher)
APPLY_FLAG(CHIEF, roles.chief)
APPLY_FLAG(EVALUATOR, roles.evaluator)
APPLY_FLAG(NPU_ISOLATE, npu_isolate)
APPLY_FLAG(EXPLAIN, explain)

/* A row without its apply function does not compile. */
static apply_fn *const apply[DIST_OPT_COUNT] = {
#define DIST_OPT_APPLY(id, ...) [DIST_OPT_##id] = apply_##id,
        DIST_OPTIONS(DIST_OPT_APPLY)
#undef DIST_OPT_APPLY
};

/* What the plugin handed over (dist_options.h), named as the user gave it
 * to srun: the mode and profiles, flags by their presence, and values
 * parsed, the variables in the table's order. */
static int apply_handover(struct cli *cli, struct dist_err *err)
{
	for (int id = 0; id < DIST_OPT_COUNT; id++) {
		const char *text = getenv(dist_opts[id].env);

		if (text && apply[id](cli, dist_opts[id].spank_flag, text, err))
			return -1;
	}
	return 0;
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

/* The shim's own options, after the table's. */
static const struct option shim_only[] = {
        {"port-range", required_argument, NULL, 'p'}, {"timeout", required_argument, NULL, 't'},
        {"topology", required_argument, NULL, 'T'},   {"gpus", required_argument, NULL, 'G'},
        {"tasks", required_argument, NULL, 'N'},      {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},          {"doctor", no_argument, NULL, 'D'},
};
#define SHIM_ONLY_SHORT "p:t:T:G:N:hV"
#define NSHIM_ONLY      (sizeof(shim_only) / sizeof(shim_only[0]))

/* getopt_long's tables: the rows of dist_options.h, then the shim's own. */
static void build_getopt(struct option longopts[DIST_OPT_COUNT + NSHIM_ONLY + 1],
                         char shortopts[2 + 2 * DIST_OPT_COUNT + sizeof(SHIM_ONLY_SHORT)])
{
	size_t n = 0, k = 0;

	shortopts[k++] = '+'; /* stop at the first non-option: the user's command */
	for (int id = 0; id < DIST_OPT_COUNT; id++) {
		const struct dist_opt *o = &dist_opts[id];

		longopts[n++] = (struct option){
		        o->shim, dist_opt_is_flag(o) ? no_argument : required_argument, NULL,
		        o->shim_short};
		shortopts[k++] = o->shim_short;
		if (!dist_opt_is_flag(o))
			shortopts[k++] = ':';
	}
	for (size_t i = 0; i < NSHIM_ONLY; i++)
		longopts[n++] = shim_only[i];
	longopts[n] = (struct option){NULL, 0, NULL, 0};
	memcpy(shortopts + k, SHIM_ONLY_SHORT, sizeof(SHIM_ONLY_SHORT));
}

/* The row whose short form is C, or -1. */
static int option_of(int c)
{
	for (int id = 0; id < DIST_OPT_COUNT; id++)
		if (dist_opts[id].shim_short == c)
			return id;
	return -1;
}

static int parse_options(int argc, char **argv, struct cli *cli, struct dist_err *err)
{
	struct option longopts[DIST_OPT_COUNT + NSHIM_ONLY + 1];
	char shortopts[2 + 2 * DIST_OPT_COUNT + sizeof(SHIM_ONLY_SHORT)];
	int id;
	int c;

	build_getopt(longopts, shortopts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if ((id = option_of(c)) >= 0) {
			if (apply[id](cli, dist_opts[id].shim_flag, optarg, err))
				return -1;
			continue;
		}
		switch (c) {
		case 'p':
			cli->port_range = optarg;
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

	defaults(cli);
	if (timeout && parse_timeout(timeout, &cli->timeout_s, err) != 0)
		return -1;
	if (apply_handover(cli, err))
		return -1;
	if (argv0)
		return parse_wrapped(argv, argv0, cli, err);
	return parse_options(argc, argv, cli, err);
}

void cli_clear_env(void)
{
	static const char *const others[] = DIST_SHIM_ENV_OTHERS;

	for (int id = 0; id < DIST_OPT_COUNT; id++)
		unsetenv(dist_opts[id].env);
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		unsetenv(others[i]);
}
