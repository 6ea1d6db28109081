/* spank_dist: adds --dist-mode to srun, sbatch and salloc and wraps each
 * task of a step with dist-shim. Runs inside Slurm's daemons (slurmstepd as
 * root until task_init), so it only validates, sets a few variables and
 * swaps the program; all real work happens in the shim, as the user. */
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dist_mode.h"
#include "dist_protocol.h"
#include "wrap.h"

SPANK_PLUGIN(dist, 1);

static struct dist_config config;
static char mode[64];
static bool mode_given;

static int on_dist_mode(int val, const char *optarg, int remote);

static struct spank_option dist_mode_option = {
        "dist-mode",
        "MODE",
        "Set up each task for distributed training: none|ddp. none turns it off for one "
        "step. (slurm-dist)",
        1,
        0,
        on_dist_mode,
};

/* Validation here stops srun, sbatch and salloc. In slurmstepd a failure
 * would fail plugin initialisation and drain the node, so the value is only
 * stored there and checked again in task_init, which fails just the task. */
static int on_dist_mode(int val, const char *optarg, int remote)
{
	struct dist_err err;

	(void)val;
	snprintf(mode, sizeof(mode), "%s", optarg ? optarg : "");
	mode_given = true;
	if (!remote && dist_mode_validate(mode, &err)) {
		slurm_error("dist: %s", err.msg);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct dist_err err;
	spank_err_t rc;

	/* slurmd itself, prolog and epilog: nothing to do, and nothing that could drain the node.
	 */
	if (spank_context() == S_CTX_JOB_SCRIPT || spank_context() == S_CTX_SLURMD)
		return 0;
	if (dist_config_parse(ac, av, DIST_SHIM_PATH, &config, &err)) {
		slurm_error("dist: %s; fix plugstack.conf", err.msg);
		return -1;
	}
	rc = spank_option_register(sp, &dist_mode_option);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("dist: cannot register --dist-mode: %s", spank_strerror(rc));
		return -1;
	}
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

/* In task_init, slurmstepd's log reaches the task's stderr too: the user sees it. */
static int fail_task(const char *why)
{
	slurm_error("dist: %s", why);
	return -1;
}

static int set_shim_env(spank_t sp)
{
	if (spank_setenv(sp, DIST_SHIM_ENV_MODE, mode, 1) != ESPANK_SUCCESS ||
	    spank_setenv(sp, DIST_SHIM_ENV_PORT_RANGE, config.port_range, 1) != ESPANK_SUCCESS ||
	    (config.timeout[0] &&
	     spank_setenv(sp, DIST_SHIM_ENV_TIMEOUT, config.timeout, 1) != ESPANK_SUCCESS))
		return -1;
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct dist_err err;

	(void)ac;
	(void)av;
	if (!mode_given || strcmp(mode, "none") == 0 || !is_srun_step(sp))
		return 0;
	if (dist_mode_validate(mode, &err))
		return fail_task(err.msg);
	if (access(config.shim, X_OK) != 0) {
		slurm_error(
		        "dist: the shim %s is not executable here; check shim= in plugstack.conf",
		        config.shim);
		return -1;
	}
	if (set_shim_env(sp))
		return fail_task("cannot set the shim's variables in the task");
	if (wrap_task(sp, config.shim, &err))
		return fail_task(err.msg);
	return 0;
}
