/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "options.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <string.h>

#include "dist_mode.h"
#include "dist_profile.h"

/* The values, by option (dist_options.h): at most its LEN bytes each. */
#define TEXT_MAX 256
static char text_buf[DIST_OPT_COUNT][TEXT_MAX];
static bool given[DIST_OPT_COUNT];
#define DIST_OPT_FITS(id, spank, shim, sh, arg, len, ...)                                          \
	_Static_assert(len <= TEXT_MAX, spank " holds more than TEXT_MAX");
DIST_OPTIONS(DIST_OPT_FITS)
#undef DIST_OPT_FITS

/* The help text names the modes of dist_mode.c's table (filled at register). */
static char mode_usage[256];
static struct spank_option options[DIST_OPT_COUNT];

static int on_option(int val, const char *optarg, int remote);

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
static int store(const char *option, char *dst, size_t len, bool *stored, const char *value,
                 int remote, dist_opt_check_fn *validate)
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
		*stored = true;
		if (!remote)
			slurm_error("dist: %s", too_long.msg);
		return remote ? 0 : -1;
	}
	snprintf(dst, len, "%s", value);
	*stored = true;
	if (!remote && validate(option, dst, &err)) {
		slurm_error("dist: %s", err.msg);
		return -1;
	}
	return 0;
}

/* Every option's callback: VAL is its row. A flag is "1" once given. */
static int on_option(int val, const char *optarg, int remote)
{
	const struct dist_opt *o;

	if (val < 0 || val >= DIST_OPT_COUNT)
		return -1;
	o = &dist_opts[val];
	if (dist_opt_is_flag(o)) {
		snprintf(text_buf[val], sizeof(text_buf[val]), "1");
		given[val] = true;
		return 0;
	}
	return store(o->spank_flag, text_buf[val], o->len, &given[val], optarg, remote, o->check);
}

bool dist_option_given(enum dist_opt_id id)
{
	return given[id];
}

const char *dist_option_text(enum dist_opt_id id)
{
	return text_buf[id];
}

const char *dist_option_set(enum dist_opt_id id)
{
	return given[id] && text_buf[id][0] ? text_buf[id] : NULL;
}

static void fill_option(enum dist_opt_id id)
{
	const struct dist_opt *o = &dist_opts[id];

	options[id] = (struct spank_option){
	        .name = (char *)o->spank,
	        .arginfo = (char *)o->arg,
	        .usage = (char *)(o->help ? o->help : mode_usage),
	        .has_arg = dist_opt_is_flag(o) ? 0 : 1,
	        .val = (int)id,
	        .cb = on_option,
	};
}

int dist_options_register(spank_t sp)
{
	spank_err_t rc = ESPANK_SUCCESS;

	snprintf(mode_usage, sizeof(mode_usage),
	         "Set up each task for distributed training: %s. none turns it off for one "
	         "step. (" DIST_VERSION_LINE ")",
	         dist_mode_choices());
	for (int id = 0; rc == ESPANK_SUCCESS && id < DIST_OPT_COUNT; id++) {
		fill_option((enum dist_opt_id)id);
		rc = spank_option_register(sp, &options[id]);
	}
	if (rc != ESPANK_SUCCESS) {
		slurm_error("dist: cannot register its options: %s", spank_strerror(rc));
		return -1;
	}
	return 0;
}

static bool mode_is(const char *mode)
{
	return given[DIST_OPT_MODE] && strcmp(text_buf[DIST_OPT_MODE], mode) == 0;
}

/* The options that only mean something with a mode, or with one mode. */
static int validate_combinations(struct dist_err *err)
{
	const bool mode = given[DIST_OPT_MODE];

	if (given[DIST_OPT_COMPAT] && !mode)
		return dist_err_set(err,
		                    "--dist-compat=%s needs --dist-mode (e.g. --dist-mode=ddp)",
		                    text_buf[DIST_OPT_COMPAT]);
	if (given[DIST_OPT_LAUNCHER] && !mode)
		return dist_err_set(err,
		                    "--dist-launcher needs --dist-mode (e.g. --dist-mode=mpi)");
	if ((dist_option_set(DIST_OPT_PS) || given[DIST_OPT_CHIEF] || given[DIST_OPT_EVALUATOR]) &&
	    !mode_is("ps"))
		return dist_err_set(err, "--dist-ps, --dist-chief and --dist-evaluator need "
		                         "--dist-mode=ps");
	if (given[DIST_OPT_NPU_ISOLATE] && !mode_is("ascend"))
		return dist_err_set(err, "--dist-npu-isolate needs --dist-mode=ascend");
	if ((dist_option_set(DIST_OPT_BIND) || given[DIST_OPT_EXPLAIN]) && !mode)
		return dist_err_set(err, "--dist-bind and --dist-explain need --dist-mode");
	if (dist_option_set(DIST_OPT_CHECK) && !mode)
		return dist_err_set(err, "--dist-check needs --dist-mode (e.g. --dist-mode=ddp)");
	return 0;
}

int dist_options_validate(struct dist_err *err)
{
	if (too_long_seen) {
		*err = too_long;
		return -1;
	}
	if (validate_combinations(err))
		return -1;
	/* Each value on its own, the table's last row first (the order in which
	 * they were always checked). */
	for (int id = DIST_OPT_COUNT - 1; id >= 0; id--) {
		const struct dist_opt *o = &dist_opts[id];

		if (o->check && dist_option_set((enum dist_opt_id)id) &&
		    o->check(o->spank_flag, text_buf[id], err))
			return -1;
	}
	if (given[DIST_OPT_COMPAT] && !mode_is("none")) {
		const struct dist_profile *profiles[DIST_PROFILES_MAX];
		size_t n;

		if (dist_profiles_parse(text_buf[DIST_OPT_COMPAT], profiles, &n, err) ||
		    dist_profiles_select_mode(profiles, n, text_buf[DIST_OPT_MODE], err))
			return -1;
	}
	return 0;
}

bool dist_options_active(void)
{
	return given[DIST_OPT_MODE] && !mode_is("none");
}
