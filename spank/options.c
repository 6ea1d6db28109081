/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "options.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <string.h>

#include "dist_bind.h"
#include "dist_check.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "dist_roles.h"
#include "dist_slurmenv.h"

struct dist_options dist_options;

static int on_dist_mode(int val, const char *optarg, int remote);
static int on_dist_compat(int val, const char *optarg, int remote);
static int on_dist_ps(int val, const char *optarg, int remote);
static int on_dist_flag(int val, const char *optarg, int remote);

enum { FLAG_LAUNCHER = 1, FLAG_CHIEF, FLAG_EVALUATOR, FLAG_NPU_ISOLATE, FLAG_EXPLAIN };
static int on_dist_bind(int val, const char *optarg, int remote);
static int on_dist_check(int val, const char *optarg, int remote);

/* The help text names the modes of dist_mode.c's table (filled at register). */
static char mode_usage[256];

static struct spank_option mode_option = {
        "dist-mode", "MODE", mode_usage, 1, 0, on_dist_mode,
};

static struct spank_option compat_option = {
        "dist-compat",
        "LIST",
        "With --dist-mode, also give tasks what these platforms set: "
        "modelarts|tione|azureml|kubeflow, comma-separated. (slurm-dist)",
        1,
        0,
        on_dist_compat,
};

static struct spank_option launcher_option = {
        "dist-launcher",
        NULL,
        "With --dist-mode and one task per node, only the first task runs the command "
        "(mpirun, horovodrun, deepspeed...); the others wait and exit with its status. "
        "(slurm-dist)",
        0,
        FLAG_LAUNCHER,
        on_dist_flag,
};

static struct spank_option ps_option = {
        "dist-ps",
        "N",
        "With --dist-mode=ps: the number of parameter servers (default 1). (slurm-dist)",
        1,
        0,
        on_dist_ps,
};

static struct spank_option chief_option = {
        "dist-chief", NULL,         "With --dist-mode=ps: rank 0 is the chief. (slurm-dist)", 0,
        FLAG_CHIEF,   on_dist_flag,
};

static struct spank_option evaluator_option = {
        "dist-evaluator",
        NULL,
        "With --dist-mode=ps: the last rank is the evaluator. (slurm-dist)",
        0,
        FLAG_EVALUATOR,
        on_dist_flag,
};

static struct spank_option npu_isolate_option = {
        "dist-npu-isolate",
        NULL,
        "With --dist-mode=ascend: each task sees only its own NPU (ASCEND_DEVICE_ID=0). "
        "(slurm-dist)",
        0,
        FLAG_NPU_ISOLATE,
        on_dist_flag,
};

static struct spank_option bind_option = {
        "dist-bind",
        "POLICY",
        "With --dist-mode: auto (default) binds each task to its GPU, the CPUs near it and "
        "the nearest NIC; none leaves binding to Slurm. (slurm-dist)",
        1,
        0,
        on_dist_bind,
};

static struct spank_option check_option = {
        "dist-check",
        "CHECK",
        "With --dist-mode: net[:SECONDS] proves, before the program starts, that every node "
        "reaches the master's port and the next node from the chosen interface; the step "
        "fails in seconds naming the nodes that cannot. (slurm-dist)",
        1,
        0,
        on_dist_check,
};

static struct spank_option explain_option = {
        "dist-explain",
        NULL,
        "With --dist-mode: each task prints its GPU, CPUs and NIC before it starts. "
        "(slurm-dist)",
        0,
        FLAG_EXPLAIN,
        on_dist_flag,
};

/* A value that did not fit its field, kept for dist_options_validate: in
 * slurmstepd a failing callback is only logged, so the task must fail. */
static struct dist_err too_long;
static bool too_long_seen;

/* Stores VALUE; validation here stops srun, sbatch and salloc. In
 * slurmstepd Slurm only logs a failing callback and runs the step anyway
 * (every release), so there the value is only stored and checked in
 * task_init, which fails each task with the message. Before 24.05 slurmstepd
 * calls this twice (launch message, then environment): storing is idempotent.
 * A value longer than its field is refused, never cut (a cut one could pass
 * validation as another value). Returns 0 or -1 only: from 25.05 any
 * non-zero return is an error. */
static int store(const char *option, char *dst, size_t len, bool *given, const char *value,
                 int remote, int (*validate)(const char *, struct dist_err *))
{
	struct dist_err err;

	if (!value)
		value = "";
	if (strlen(value) >= len) {
		if (!too_long_seen)
			dist_err_set(&too_long,
			             "%s: the value '%.40s%s' is too long (at most %zu "
			             "characters)",
			             option, value, strlen(value) > 40 ? "..." : "", len - 1);
		too_long_seen = true;
		dst[0] = '\0';
		*given = true;
		if (!remote)
			slurm_error("dist: %s", too_long.msg);
		return remote ? 0 : -1;
	}
	snprintf(dst, len, "%s", value);
	*given = true;
	if (!remote && validate(dst, &err)) {
		slurm_error("dist: %s", err.msg);
		return -1;
	}
	return 0;
}

static int validate_compat(const char *list, struct dist_err *err)
{
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	size_t n;

	return dist_profiles_parse(list, profiles, &n, err);
}

static int on_dist_mode(int val, const char *optarg, int remote)
{
	(void)val;
	return store("--dist-mode", dist_options.mode, sizeof(dist_options.mode),
	             &dist_options.mode_given, optarg, remote, dist_mode_validate);
}

static int on_dist_compat(int val, const char *optarg, int remote)
{
	(void)val;
	return store("--dist-compat", dist_options.compat, sizeof(dist_options.compat),
	             &dist_options.compat_given, optarg, remote, validate_compat);
}

static int validate_ps(const char *text, struct dist_err *err)
{
	uint32_t n;

	return dist_roles_parse_ps("--dist-ps", text, &n, err);
}

static int on_dist_ps(int val, const char *optarg, int remote)
{
	bool given;

	(void)val;
	return store("--dist-ps", dist_options.ps, sizeof(dist_options.ps), &given, optarg, remote,
	             validate_ps);
}

static int on_dist_flag(int val, const char *optarg, int remote)
{
	(void)optarg;
	(void)remote;
	if (val == FLAG_LAUNCHER)
		dist_options.launcher = true;
	else if (val == FLAG_CHIEF)
		dist_options.chief = true;
	else if (val == FLAG_EVALUATOR)
		dist_options.evaluator = true;
	else if (val == FLAG_NPU_ISOLATE)
		dist_options.npu_isolate = true;
	else
		dist_options.explain = true;
	return 0;
}

static int validate_bind(const char *text, struct dist_err *err)
{
	enum dist_bind_policy policy;

	return dist_bind_policy_parse("--dist-bind", text, &policy, err);
}

static int on_dist_bind(int val, const char *optarg, int remote)
{
	bool given;

	(void)val;
	return store("--dist-bind", dist_options.bind, sizeof(dist_options.bind), &given, optarg,
	             remote, validate_bind);
}

static int validate_check(const char *text, struct dist_err *err)
{
	struct dist_check check;

	return dist_check_parse("--dist-check", text, &check, err);
}

static int on_dist_check(int val, const char *optarg, int remote)
{
	bool given;

	(void)val;
	return store("--dist-check", dist_options.check, sizeof(dist_options.check), &given, optarg,
	             remote, validate_check);
}

int dist_options_register(spank_t sp)
{
	static struct spank_option *const options[] = {
	        &mode_option,  &compat_option,    &launcher_option,    &ps_option,
	        &chief_option, &evaluator_option, &npu_isolate_option, &bind_option,
	        &check_option, &explain_option,
	};
	spank_err_t rc = ESPANK_SUCCESS;

	snprintf(mode_usage, sizeof(mode_usage),
	         "Set up each task for distributed training: %s. none turns it off for one "
	         "step. (" DIST_VERSION_LINE ")",
	         dist_mode_choices());
	for (size_t i = 0; rc == ESPANK_SUCCESS && i < sizeof(options) / sizeof(options[0]); i++)
		rc = spank_option_register(sp, options[i]);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("dist: cannot register its options: %s", spank_strerror(rc));
		return -1;
	}
	return 0;
}

int dist_options_validate(struct dist_err *err)
{
	if (too_long_seen) {
		*err = too_long;
		return -1;
	}
	if (dist_options.compat_given && !dist_options.mode_given)
		return dist_err_set(err,
		                    "--dist-compat=%s needs --dist-mode (e.g. --dist-mode=ddp)",
		                    dist_options.compat);
	if (dist_options.launcher && !dist_options.mode_given)
		return dist_err_set(err,
		                    "--dist-launcher needs --dist-mode (e.g. --dist-mode=mpi)");
	if ((dist_options.ps[0] || dist_options.chief || dist_options.evaluator) &&
	    (!dist_options.mode_given || strcmp(dist_options.mode, "ps") != 0))
		return dist_err_set(err, "--dist-ps, --dist-chief and --dist-evaluator need "
		                         "--dist-mode=ps");
	if (dist_options.npu_isolate &&
	    (!dist_options.mode_given || strcmp(dist_options.mode, "ascend") != 0))
		return dist_err_set(err, "--dist-npu-isolate needs --dist-mode=ascend");
	if ((dist_options.bind[0] || dist_options.explain) && !dist_options.mode_given)
		return dist_err_set(err, "--dist-bind and --dist-explain need --dist-mode");
	if (dist_options.check[0] && !dist_options.mode_given)
		return dist_err_set(err, "--dist-check needs --dist-mode (e.g. --dist-mode=ddp)");
	if (dist_options.check[0] && validate_check(dist_options.check, err))
		return -1;
	if (dist_options.bind[0] && validate_bind(dist_options.bind, err))
		return -1;
	if (dist_options.ps[0] && validate_ps(dist_options.ps, err))
		return -1;
	if (dist_options.mode_given && dist_mode_validate(dist_options.mode, err))
		return -1;
	if (dist_options.compat_given && validate_compat(dist_options.compat, err))
		return -1;
	if (dist_options.compat_given && strcmp(dist_options.mode, "none") != 0) {
		const struct dist_profile *profiles[DIST_PROFILES_MAX];
		size_t n;

		if (dist_profiles_parse(dist_options.compat, profiles, &n, err) ||
		    dist_profiles_select_mode(profiles, n, dist_options.mode, err))
			return -1;
	}
	return 0;
}

bool dist_options_active(void)
{
	return dist_options.mode_given && strcmp(dist_options.mode, "none") != 0;
}
