/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spank_dist: adds --dist-mode to srun, sbatch and salloc and wraps each
 * task of a step with dist-shim. Every slurm_spank_* entry point below is a
 * dispatcher: it asks spank_context() once and calls the function for that
 * context, each marked with who it runs as.
 *
 * What the plugin does as root (slurmstepd), and nothing else:
 *   - slurm_spank_init in slurmd and slurmstepd: parses plugstack.conf's
 *     arguments (config.c); in slurmd logs the build it loaded.
 *   - slurm_spank_init_post_opt in slurmstepd: notes its own mount namespace
 *     and makes a socket on which the tasks hand theirs over (taskns.c).
 *   - slurm_spank_task_init_privileged in each task's process: opens
 *     (O_PATH, with the job's user's effective ids) the shim's directory, the loader its ELF header names,
 *     dist-shim-enter and the shim's library directories, so that the shim
 *     can be carried into a container a later plugin enters (carry.c);
 *     reads nothing but the shim's ELF header.
 *   - slurm_spank_exit in slurmstepd: forks a child that drops to the job's
 *     user, closes every descriptor it inherited and removes the step's
 *     directory; slurmstepd waits for it at most a few seconds, then kills
 *     it (nodedir.c, child.c). Under a job container one more such child
 *     first enters the tasks' mount namespace (setns), then does the same.
 * user_init runs with the job's user as effective ids (the real ids stay
 * root); task_init runs in the task's process as the user. All real work
 * happens in the shim, as the user (docs/security.md). */
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "carry.h"
#include "config.h"
#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "dist_protocol.h"
#include "dist_relay.h"
#include "nodedir.h"
#include "options.h"
#include "stepnodes.h"
#include "userbind.h"
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

/* slurmd, slurmstepd (root), srun, sbatch, salloc (the user): the plugstack
 * arguments first. In slurmd, when it starts, a typo then stops slurmd with
 * its cause in the log (the admin sees it at once) instead of failing,
 * later, the first step on the node. */
static int init_config(int ac, char **av)
{
	struct dist_err err;

	if (dist_config_parse(ac, av, DIST_SHIM_PATH, &config, &err)) {
		slurm_error("dist: %s; fix plugstack.conf", err.msg);
		return -1;
	}
	return 0;
}

/* slurmd (root): no options to offer; its log says which build it loaded. */
static int init_slurmd(int ac, char **av)
{
	if (init_config(ac, av))
		return -1;
	slurm_info("dist: %s loaded", build_line + sizeof(DIST_BUILD_MARKER) - 1);
	return 0;
}

/* srun, sbatch, salloc (the user) and slurmstepd (root): the options. */
static int init_options(spank_t sp, int ac, char **av)
{
	return init_config(ac, av) ? -1 : dist_options_register(sp);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_JOB_SCRIPT: /* prolog, epilog: nothing that could drain the node */
		return 0;
	case S_CTX_SLURMD:
		return init_slurmd(ac, av);
	default:
		return init_options(sp, ac, av);
	}
}

/* srun, for a launcher-form step: a fresh key for its relay, in srun's own
 * environment, which srun sends to the step's tasks and no one else
 * (docs/security.md, "launcher relay"). Without it the shim says why. */
static void set_relay_key(void)
{
	uint8_t key[DIST_RELAY_KEY_LEN];
	char hex[DIST_RELAY_KEY_HEX];

	if (!dist_option_given(DIST_OPT_LAUNCHER) ||
	    getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key))
		return;
	dist_relay_key_format(key, hex);
	if (setenv(DIST_SHIM_ENV_RELAY_KEY, hex, 1) != 0)
		slurm_error("dist: cannot set %s", DIST_SHIM_ENV_RELAY_KEY);
}

/* Slurm's own OCI containers (--container, or SLURM_CONTAINER, which
 * sbatch and salloc pass to every srun of the job; each of them sets it
 * from the option before this runs). From 23.02 slurmstepd would start the
 * shim inside the image, where it is not; 22.05 drops the shim without a
 * word and the program runs without the contract. Refused until the shim
 * can be carried in (docs/containers.md). */
static int refuse_oci_container(void)
{
	const char *bundle = getenv("SLURM_CONTAINER");

	if (!dist_options_active() || !bundle || !*bundle)
		return 0;
	slurm_error("dist: --dist-mode cannot be used with Slurm's --container (%s) yet: the "
	            "tasks would run without the contract; run the container inside the step "
	            "instead (srun --dist-mode=... ch-run IMAGE -- PROGRAM, docs/containers.md) "
	            "or drop --container",
	            bundle);
	return -1;
}

/* srun, sbatch and salloc (the user), once all options are known: the
 * checks that need several of them; srun also draws the relay's key. */
static int post_opt_submit(bool is_srun)
{
	struct dist_err err;

	if (dist_options_validate(&err)) {
		slurm_error("dist: %s", err.msg);
		return -1;
	}
	if (refuse_oci_container())
		return -1;
	if (is_srun)
		set_relay_key();
	return 0;
}

static int prepare_step_dir(spank_t sp);

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_LOCAL:
		return post_opt_submit(true);
	case S_CTX_ALLOCATOR:
		return post_opt_submit(false);
	case S_CTX_REMOTE: /* checks in task_init, where a failure reaches the task */
		return prepare_step_dir(sp);
	default:
		return 0;
	}
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
	const char *compat = dist_option_set(DIST_OPT_COMPAT);
	bool needs = mode->needs_nodes || dist_option_given(DIST_OPT_LAUNCHER);
	size_t n = 0;

	if (compat && dist_profiles_parse(compat, profiles, &n, &ignored) == 0)
		for (size_t i = 0; i < n; i++)
			needs = needs || dist_profile_needs_nodes(profiles[i]);
	return needs;
}

/* srun (the user), once the step exists: for tasks without PMI, the
 * step's node order and addresses from one query, instead of one query per
 * task. */
static int publish_step_nodes(spank_t sp)
{
	const struct dist_mode *mode = NULL;

	if (!dist_options_active() ||
	    dist_mode_lookup(dist_option_text(DIST_OPT_MODE), &mode) != DIST_MODE_AVAILABLE ||
	    !mode || tasks_exchange(mode))
		return 0;
	stepnodes_publish(sp, tasks_need_nodes(mode));
	return 0;
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_LOCAL ? publish_step_nodes(sp) : 0;
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
static int set_one(spank_t sp, const char *name, const char *value)
{
	spank_err_t rc = value ? spank_setenv(sp, name, value, 1) : spank_unsetenv(sp, name);

	return rc == ESPANK_SUCCESS || (rc == ESPANK_ENV_NOEXIST && !value) ? 0 : -1;
}

static int set_shim_env(spank_t sp)
{
	for (int id = 0; id < DIST_OPT_COUNT; id++)
		if (set_one(sp, dist_opts[id].env, dist_option_set((enum dist_opt_id)id)))
			return -1;
	if (set_one(sp, DIST_SHIM_ENV_PORT_RANGE, config.port_range) ||
	    set_one(sp, DIST_SHIM_ENV_TIMEOUT, config.timeout[0] ? config.timeout : NULL) ||
	    set_one(sp, DIST_SHIM_ENV_USER_BIND, userbind_value()))
		return -1;
	return 0;
}

/* The mode's files need the step's directory; for the others it only lets
 * a node's tasks share one topology discovery, and the task runs without. */
static bool mode_writes_files(void)
{
	const struct dist_mode *mode = NULL;

	return dist_mode_lookup(dist_option_text(DIST_OPT_MODE), &mode) != DIST_MODE_AVAILABLE ||
	       !mode || mode->build_files;
}

/* What the task execs in front of its program: the shim at its path, or,
 * when a plugin before this one moved the task into a container (or the
 * site says carry_shim=always), dist-shim-enter through its descriptor,
 * which starts the node's shim there (carry.h). NULL after telling why. */
static const char *shim_to_exec(spank_t sp)
{
	struct dist_err err = {{0}};
	const char *path;

	if (!carry_needed(config.shim, config.carry_always)) {
		carry_close();
		if (access(config.shim, X_OK) == 0)
			return config.shim;
		slurm_error(
		        "dist: the shim %s is not executable here; check shim= in plugstack.conf",
		        config.shim);
		return NULL;
	}
	path = carry_wrap_path(sp, &err);
	if (!path)
		slurm_error("dist: the shim %s is not executable in this task (a wrong shim= in "
		            "plugstack.conf, or a plugin before dist moved the task into a "
		            "container) and could not be carried in: %s",
		            config.shim, err.msg);
	return path;
}

/* slurmstepd, in the task's own process, as the user, just before exec:
 * hands the options to the shim and puts it in front of the program. */
static int wrap_this_task(spank_t sp)
{
	struct dist_err err;
	const char *shim;

	if (!dist_options_active() || !is_srun_step(sp) || is_mpi_daemon_step(sp))
		return 0;
	if (dist_options_validate(&err))
		return fail_task(err.msg);
	shim = shim_to_exec(sp);
	if (!shim)
		return -1;
	if (set_shim_env(sp))
		return fail_task("cannot set the shim's variables in the task");
	if (nodedir_handover(sp, &err) && mode_writes_files())
		return fail_task(err.msg);
	if (wrap_task(sp, shim, &err))
		return fail_task(err.msg);
	return 0;
}

/* slurmstepd, in the task's process as root, before any plugin's
 * task_init (a container plugin's among them). */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() == S_CTX_REMOTE && dist_options_active() && is_srun_step(sp) &&
	    !is_mpi_daemon_step(sp))
		carry_open(sp, config.shim);
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? wrap_this_task(sp) : 0;
}

/* Whether this step's tasks are wrapped, and so get a step directory. */
static bool wants_step_dir(spank_t sp)
{
	return dist_options_active() && is_srun_step(sp) && !is_mpi_daemon_step(sp);
}

/* slurmstepd (root), before the tasks are forked. */
static int prepare_step_dir(spank_t sp)
{
	if (wants_step_dir(sp))
		nodedir_prepare();
	return 0;
}

/* slurmstepd, once per step on each node, with the job's user as effective
 * ids: the step's private directory on this node (nodedir.h), and whether
 * the user asked Slurm to bind CPUs (userbind.h). */
static int make_step_dir(spank_t sp)
{
	if (wants_step_dir(sp)) {
		userbind_note(sp);
		nodedir_make(sp);
	}
	return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	return spank_context() == S_CTX_REMOTE ? make_step_dir(sp) : 0;
}

/* slurmstepd at the step's end, as root: the directory goes, removed by a
 * child that is the job's user (nodedir.h). Elsewhere nothing was made. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() == S_CTX_REMOTE)
		nodedir_remove(sp);
	return 0;
}
