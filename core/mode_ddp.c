/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ddp: one process per GPU, as PyTorch's env:// init, torchrun, Azure ML and
 * Kubeflow's PyTorchJob set it up. */
#include <stdio.h>
#include <stdlib.h>

#include "dist_mode.h"

static int set_u32(struct dist_env *env, const char *name, uint32_t value, struct dist_err *err)
{
	return dist_env_setf(env, err, name, "%u", value);
}

static int build_rank_vars(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (set_u32(env, "RANK", w->rank, err) || set_u32(env, "WORLD_SIZE", w->size, err) ||
	    set_u32(env, "LOCAL_RANK", w->local_rank, err) ||
	    set_u32(env, "LOCAL_WORLD_SIZE", w->local_size, err) ||
	    set_u32(env, "NODE_RANK", w->node_rank, err) ||
	    set_u32(env, "GROUP_RANK", w->node_rank, err) || set_u32(env, "NNODES", w->nnodes, err))
		return -1;
	return 0;
}

/* torchrun reads each flag's default from PET_<FLAG>, so one task per node
 * running `torchrun --nproc_per_node=K` needs no further arguments. */
static int build_torchrun_vars(const struct dist_world *w, struct dist_env *env,
                               struct dist_err *err)
{
	if (set_u32(env, "PET_NNODES", w->nnodes, err) ||
	    set_u32(env, "PET_NODE_RANK", w->node_rank, err) ||
	    dist_env_set(env, "PET_MASTER_ADDR", w->master_addr, err) ||
	    dist_env_setf(env, err, "PET_MASTER_PORT", "%u", w->master_port))
		return -1;
	return 0;
}

static int build_master_vars(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (dist_env_set(env, "MASTER_ADDR", w->master_addr, err) ||
	    dist_env_setf(env, err, "MASTER_PORT", "%u", w->master_port))
		return -1;
	if (w->master_ifname[0] == '\0')
		return 0;
	/* Gloo wants the exact name; NCCL matches prefixes unless the name starts with '='. */
	if (dist_env_set(env, "GLOO_SOCKET_IFNAME", w->master_ifname, err) ||
	    dist_env_setf(env, err, "NCCL_SOCKET_IFNAME", "=%s", w->master_ifname))
		return -1;
	return 0;
}

/* What torchrun's agent gives each worker besides env://'s variables
 * (torch/distributed/elastic/agent/server/local_elastic_agent.py,
 * _start_workers), with the meaning they have there: one role ("default"),
 * the node is the agent's group. torch.distributed.is_torchelastic_launched()
 * and the libraries that branch on it (Lightning, @record) see TORCHELASTIC_RUN_ID. */
static int build_elastic_vars(const struct dist_world *w, struct dist_env *env,
                              struct dist_err *err)
{
	if (set_u32(env, "GROUP_WORLD_SIZE", w->nnodes, err) ||
	    dist_env_set(env, "ROLE_NAME", "default", err) ||
	    set_u32(env, "ROLE_RANK", w->rank, err) ||
	    set_u32(env, "ROLE_WORLD_SIZE", w->size, err) ||
	    dist_env_set(env, "TORCHELASTIC_RUN_ID", w->run_id[0] ? w->run_id : "none", err) ||
	    set_u32(env, "TORCHELASTIC_RESTART_COUNT", w->restart_count, err) ||
	    /* Slurm promises no further requeue: no more restarts than those made. */
	    set_u32(env, "TORCHELASTIC_MAX_RESTARTS", w->restart_count, err) ||
	    /* No agent hosts a store: rank 0 hosts env://'s own, as without torchrun.
	     * "True" would make every rank wait for a store no one serves. */
	    dist_env_set(env, "TORCHELASTIC_USE_AGENT_STORE", "False", err) ||
	    /* What torchrun (2.14 here, not 2.6) tells its workers it turns into a stop
	     * (TORCHELASTIC_SIGNALS_TO_HANDLE): here srun and scancel deliver
	     * the same four to the program itself. */
	    dist_env_set(env, "TORCHELASTIC_SIGNALS_TO_HANDLE", "SIGTERM,SIGINT,SIGHUP,SIGQUIT",
	                 err) ||
	    /* torch 1.x reads the first name, 2.x the second. */
	    dist_env_set(env, "NCCL_ASYNC_ERROR_HANDLING", "1", err) ||
	    dist_env_set(env, "TORCH_NCCL_ASYNC_ERROR_HANDLING", "1", err))
		return -1;
	/* Where @record writes this rank's error: private to the step and node. */
	if (w->step_dir && dist_env_setf(env, err, "TORCHELASTIC_ERROR_FILE",
	                                 "%s/" DIST_ERROR_FILE_FMT, w->step_dir, w->rank))
		return -1;
	return 0;
}

/* JAX_LOCAL_DEVICE_IDS: this task's GPUs among those it sees. Without it
 * jax.distributed.initialize() takes SLURM_LOCALID as the device, which
 * does not exist when each task sees only its own GPU. Unset when the
 * task's share is not clear (no GPU, or fewer GPUs than tasks). */
static int build_jax_devices(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	char *ids;
	size_t used = 0, len;
	int rc;

	if (w->local_gpus == 0 ||
	    (w->local_size > 1 && w->local_gpus > 1 && w->local_gpus < w->local_size))
		return 0;
	if (w->local_size > 1 && w->local_gpus > 1)
		return set_u32(env, "JAX_LOCAL_DEVICE_IDS", w->local_rank, err);
	/* One GPU each, or one task using all the GPUs it sees. */
	len = (size_t)w->local_gpus * 11 + 1;
	ids = malloc(len);
	if (!ids)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < w->local_gpus; i++)
		used += (size_t)snprintf(ids + used, len - used, i ? ",%u" : "%u", i);
	rc = dist_env_set(env, "JAX_LOCAL_DEVICE_IDS", ids, err);
	free(ids);
	return rc;
}

/* jax.distributed.initialize() reads JAX_COORDINATOR_ADDRESS before it
 * falls back to Slurm's first host name (which need not resolve) and a port
 * derived from the job id (which may be taken): give it the master. */
static int build_jax_vars(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (dist_env_setf(env, err, "JAX_COORDINATOR_ADDRESS", "%s:%u", w->master_addr,
	                  w->master_port))
		return -1;
	return build_jax_devices(w, env, err);
}

static int ddp_build_env(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (build_master_vars(w, env, err) || build_rank_vars(w, env, err) ||
	    build_torchrun_vars(w, env, err) || build_elastic_vars(w, env, err) ||
	    build_jax_vars(w, env, err))
		return -1;
	return 0;
}

const struct dist_mode dist_mode_ddp = {
        .name = "ddp",
        .summary =
                "PyTorch DDP / torchrun: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK...",
        .build_env = ddp_build_env,
};
