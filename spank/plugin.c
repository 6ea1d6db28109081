/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank_dist: adds --dist-mode to srun, sbatch and salloc and wraps each
 * task of a step with dist-shim. Runs inside Slurm's daemons (slurmstepd as
 * root until task_init), so it only validates, sets a few variables and
 * swaps the program; all real work happens in the shim, as the user. */
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "config.h"
#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "dist_protocol.h"
#include "dist_relay.h"
#include "nodedir.h"
#include "options.h"
#include "stepnodes.h"
#include "wrap.h"

SPANK_PLUGIN(dist, 1);

#ifdef DIST_HAVE_SPANK_FAILURE_MODE
/* Slurm 25.05 and later: when init fails in slurmstepd (a broken plugstack
 * line), fail the job instead of draining the node. Older releases drain
 * the node for a failing required plugin (docs/admin.md). */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

static struct dist_config config;

/* The version this file carries for dist-shim --doctor (dist_protocol.h). */
__attribute__((used)) static const char build_line[] = DIST_BUILD_MARKER DIST_VERSION_LINE;

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct dist_err err;

	/* Prolog and epilog: nothing to do, and nothing that could drain the node. */
	if (spank_context() == S_CTX_JOB_SCRIPT)
		return 0;
	/* Everywhere else the plugstack arguments first: in slurmd, when it
	 * starts, a typo then stops slurmd with its cause in the log (the admin
	 * sees it at once) instead of failing, later, the first step on the node. */
	if (dist_config_parse(ac, av, DIST_SHIM_PATH, &config, &err)) {
		slurm_error("dist: %s; fix plugstack.conf", err.msg);
		return -1;
	}
	/* slurmd itself has no options to offer; its log says which build it loaded. */
	if (spank_context() == S_CTX_SLURMD) {
		slurm_info("dist: %s loaded", build_line + sizeof(DIST_BUILD_MARKER) - 1);
		return 0;
	}
	return dist_options_register(sp);
}

/* srun, for a launcher-form step: a fresh key for its relay, in srun's own
 * environment, which srun sends to the step's tasks and no one else
 * (docs/security.md, "launcher relay"). Without it the shim says why. */
static void set_relay_key(void)
{
	uint8_t key[DIST_RELAY_KEY_LEN];
	char hex[DIST_RELAY_KEY_HEX];

	if (!dist_options.launcher || getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
		return;
	dist_relay_key_format(key, hex);
	if (setenv(DIST_SHIM_ENV_RELAY_KEY, hex, 1) != 0)
		slurm_error("dist: cannot set %s", DIST_SHIM_ENV_RELAY_KEY);
}

/* srun, sbatch and salloc, once all options are known: the checks that
 * need several of them. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	struct dist_err err;

	(void)sp;
	(void)ac;
	(void)av;
	if (spank_remote(sp) || spank_context() == S_CTX_JOB_SCRIPT ||
	    spank_context() == S_CTX_SLURMD)
		return 0;
	if (dist_options_validate(&err)) {
		slurm_error("dist: %s", err.msg);
		return -1;
	}
	if (spank_context() == S_CTX_LOCAL)
		set_relay_key();
	return 0;
}

/* Whether the tasks of this srun find their nodes without asking slurmctld:
 * with PMIx or PMI2 the shim's exchange tells them, unless the mode leaves
 * the step's PMI to the program (mode mpi). */
static bool tasks_exchange(const struct dist_mode *mode)
{
	const char *mpi = getenv("SLURM_MPI_TYPE");

	return mpi && (strncmp(mpi, "pmix", 4) == 0 || strcmp(mpi, "pmi2") == 0) &&
	       !mode->program_uses_pmi;
}

/* Whether the tasks need every node's address (a node table), not only the
 * master's. */
static bool tasks_need_nodes(const struct dist_mode *mode)
{
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	struct dist_err ignored;
	bool needs = mode->needs_nodes || dist_options.launcher;
	size_t n = 0;

	if (dist_options.compat_given &&
	    dist_profiles_parse(dist_options.compat, profiles, &n, &ignored) == 0)
		for (size_t i = 0; i < n; i++)
			needs = needs || dist_profile_needs_nodes(profiles[i]);
	return needs;
}

/* srun, once the step exists: for tasks without PMI, the step's node order
 * and addresses from one query, instead of one query per task. */
int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	const struct dist_mode *mode = NULL;

	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_LOCAL || !dist_options_active() ||
	    dist_mode_lookup(dist_options.mode, &mode) != DIST_MODE_AVAILABLE || !mode ||
	    tasks_exchange(mode))
		return 0;
	stepnodes_publish(sp, tasks_need_nodes(mode));
	return 0;
}

/* The batch script, the extern step and salloc's interactive step are not
 * the user's distributed program; only srun steps are wrapped. */
static bool is_srun_step(spank_t sp)
{
	uint32_t step = 0;

	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return false;
	return step != SLURM_BATCH_SCRIPT && step != SLURM_EXTERN_CONT &&
	       step != SLURM_INTERACTIVE_STEP;
}

/* A step an MPI launcher started for its daemons (mpirun's srun ... orted
 * inside a --dist-mode job, which inherits the job's mode): its tasks are
 * the launcher's, not the user's ranks, and are left alone. */
static bool is_mpi_daemon_step(spank_t sp)
{
	char **argv = NULL;
	int argc = 0;

	return spank_get_item(sp, S_JOB_ARGV, &argc, &argv) == ESPANK_SUCCESS && argc > 0 && argv &&
	       dist_is_mpi_daemon(argv[0]);
}

/* In task_init, slurmstepd's log reaches the task's stderr too: the user sees it. */
static int fail_task(const char *why)
{
	slurm_error("dist: %s", why);
	return -1;
}

/* The options and site settings the shim reads (dist_protocol.h); a NULL
 * value is unset, so that nothing left in the task's environment (the
 * user's or an earlier step's) speaks for the plugin. */
static int set_shim_env(spank_t sp)
{
	const struct {
		const char *name;
		const char *value;
	} vars[] = {
	        {DIST_SHIM_ENV_MODE, dist_options.mode},
	        {DIST_SHIM_ENV_COMPAT, dist_options.compat_given ? dist_options.compat : NULL},
	        {DIST_SHIM_ENV_LAUNCHER, dist_options.launcher ? "1" : NULL},
	        {DIST_SHIM_ENV_PS, dist_options.ps[0] ? dist_options.ps : NULL},
	        {DIST_SHIM_ENV_CHIEF, dist_options.chief ? "1" : NULL},
	        {DIST_SHIM_ENV_EVALUATOR, dist_options.evaluator ? "1" : NULL},
	        {DIST_SHIM_ENV_NPU_ISOLATE, dist_options.npu_isolate ? "1" : NULL},
	        {DIST_SHIM_ENV_BIND, dist_options.bind[0] ? dist_options.bind : NULL},
	        {DIST_SHIM_ENV_EXPLAIN, dist_options.explain ? "1" : NULL},
	        {DIST_SHIM_ENV_CHECK, dist_options.check[0] ? dist_options.check : NULL},
	        {DIST_SHIM_ENV_PORT_RANGE, config.port_range},
	        {DIST_SHIM_ENV_TIMEOUT, config.timeout[0] ? config.timeout : NULL},
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		spank_err_t rc = vars[i].value ? spank_setenv(sp, vars[i].name, vars[i].value, 1)
		                               : spank_unsetenv(sp, vars[i].name);

		if (rc != ESPANK_SUCCESS && !(rc == ESPANK_ENV_NOEXIST && !vars[i].value))
			return -1;
	}
	return 0;
}

/* The mode's files need the step's directory; for the others it only lets
 * a node's tasks share one topology discovery, and the task runs without. */
static bool mode_writes_files(void)
{
	const struct dist_mode *mode = NULL;

	return dist_mode_lookup(dist_options.mode, &mode) != DIST_MODE_AVAILABLE || !mode ||
	       mode->build_files;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct dist_err err;

	(void)ac;
	(void)av;
	if (!dist_options_active() || !is_srun_step(sp) || is_mpi_daemon_step(sp))
		return 0;
	if (dist_options_validate(&err))
		return fail_task(err.msg);
	if (access(config.shim, X_OK) != 0) {
		slurm_error(
		        "dist: the shim %s is not executable here; check shim= in plugstack.conf",
		        config.shim);
		return -1;
	}
	if (set_shim_env(sp))
		return fail_task("cannot set the shim's variables in the task");
	if (nodedir_handover(sp, &err) && mode_writes_files())
		return fail_task(err.msg);
	if (wrap_task(sp, config.shim, &err))
		return fail_task(err.msg);
	return 0;
}

/* slurmstepd, once per step on each node, as the job's user (Slurm dropped
 * to it): the step's private directory on this node (nodedir.h). */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_remote(sp) && dist_options_active() && is_srun_step(sp) &&
	    !is_mpi_daemon_step(sp))
		nodedir_make(sp);
	return 0;
}

/* slurmstepd at the step's end (as root): the directory goes, removed by a
 * child that is the job's user. Elsewhere nothing was made. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_remote(sp))
		nodedir_remove(sp);
	return 0;
}
