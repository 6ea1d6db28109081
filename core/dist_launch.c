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

bool dist_is_mpi_daemon(const char *program)
{
	const char *base;

	if (!program)
		return false;
	base = strrchr(program, '/');
	base = base ? base + 1 : program;
	for (size_t i = 0; i < COUNT(mpi_daemons); i++)
		if (strcmp(base, mpi_daemons[i]) == 0)
			return true;
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

int dist_handover_encode(long pid, const char *value, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%ld:%s", pid, value);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

const char *dist_handover_decode(const char *text, long pid)
{
	const char *p = text;
	long v = 0;

	if (!p || *p < '1' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (LONG_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (*p - '0');
	}
	if (*p != ':' || p[1] == '\0' || v != pid)
		return NULL;
	return p + 1;
}
