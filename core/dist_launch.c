/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_launch.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* How the launchers start their daemons under Slurm (srun ... DAEMON):
 * Open MPI 4's plm/slurm runs orted; Open MPI 5 and 6 (PRRTE) run prted
 * (with --external-launcher or not) and a DVM's prte; MPICH's Hydra runs
 * hydra_pmi_proxy, Intel MPI's Hydra pmi_proxy. */
static const char *const mpi_daemons[] = {"orted", "prted", "prte", "hydra_pmi_proxy", "pmi_proxy"};

const char *dist_program_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool dist_is_mpi_daemon(const char *program)
{
	if (!program)
		return false;
	for (size_t i = 0; i < COUNT(mpi_daemons); i++)
		if (strcmp(dist_program_name(program), mpi_daemons[i]) == 0)
			return true;
	return false;
}

static bool is_torch_launcher_module(const char *module)
{
	return module && (strcmp(module, "torch.distributed.run") == 0 ||
	                  strcmp(module, "torch.distributed.launch") == 0);
}

bool dist_is_torch_launcher(char *const *argv)
{
	if (!argv || !argv[0])
		return false;
	if (strcmp(dist_program_name(argv[0]), "torchrun") == 0)
		return true;
	if (strncmp(dist_program_name(argv[0]), "python", 6) != 0)
		return false;
	/* python's own options up to the module or the script. */
	for (size_t i = 1; argv[i] && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-m") == 0)
			return is_torch_launcher_module(argv[i + 1]);
		if (strncmp(argv[i], "-m", 2) == 0)
			return is_torch_launcher_module(argv[i] + 2);
		if (strcmp(argv[i], "-c") == 0)
			return false;
		if ((strcmp(argv[i], "-W") == 0 || strcmp(argv[i], "-X") == 0) && argv[i + 1])
			i++;
	}
	return false;
}

/* What the modes set for one task or one node only. A launcher's
 * processes are counted by the launcher (mpirun -np), not by the step, so
 * sizes counted in the step's tasks go too; NNODES and PET_NNODES (the
 * step's nodes, which the launcher's processes share) stay. */
static const char *const per_task_vars[] = {
        "RANK",
        "WORLD_SIZE",
        "LOCAL_RANK",
        "LOCAL_WORLD_SIZE",
        "NODE_RANK",
        "GROUP_RANK",
        "ROLE_RANK",
        "ROLE_WORLD_SIZE",
        "PET_NODE_RANK",
        "GLOO_SOCKET_IFNAME",
        "NCCL_SOCKET_IFNAME",
        "HOROVOD_GLOO_IFACE",
        "TF_CONFIG",
        "RANK_ID",
        "RANK_SIZE",
        "DEVICE_ID",
        "ASCEND_DEVICE_ID",
        "ASCEND_RT_VISIBLE_DEVICES",
        "JAX_LOCAL_DEVICE_IDS",
        /* They would tell the launcher's processes that torchrun started
         * them (is_torchelastic_launched), which then find no RANK. */
        "ROLE_NAME",
        "TORCHELASTIC_RUN_ID",
        "TORCHELASTIC_RESTART_COUNT",
        "TORCHELASTIC_MAX_RESTARTS",
        "TORCHELASTIC_USE_AGENT_STORE",
        "TORCHELASTIC_ERROR_FILE",
        "TORCHELASTIC_SIGNALS_TO_HANDLE",
};

void dist_env_strip_per_task(struct dist_env *env)
{
	for (size_t i = 0; i < COUNT(per_task_vars); i++)
		dist_env_unset(env, per_task_vars[i]);
}

int dist_contract_env(const struct dist_mode *mode, const struct dist_profile *const *profiles,
                      size_t nprofiles, const struct dist_world *w, struct dist_env *env,
                      struct dist_err *err)
{
	if (mode->build_env(w, env, err) ||
	    dist_profiles_build_env(profiles, nprofiles, w, env, err))
		return -1;
	if (w->launcher)
		dist_env_strip_per_task(env);
	return 0;
}
