/* ddp: one process per GPU, as PyTorch's env:// init, torchrun, Azure ML and
 * Kubeflow's PyTorchJob set it up. */
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

static int ddp_build_env(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (build_master_vars(w, env, err) || build_rank_vars(w, env, err) ||
	    build_torchrun_vars(w, env, err))
		return -1;
	return 0;
}

const struct dist_mode dist_mode_ddp = {
        .name = "ddp",
        .summary =
                "PyTorch DDP / torchrun: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK...",
        .build_env = ddp_build_env,
};
