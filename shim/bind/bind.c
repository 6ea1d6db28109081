/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bind/bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/carried.h"
#include "base/msg.h"
#include "bind/bind_plan.h"
#include "bind/rdma.h"
#include "bind/topo.h"
#include "dist_bind.h"
#include "dist_list.h"

/* The Nth entry of a comma-separated list, or "-". */
static void list_entry(const char *list, int32_t n, char *out, size_t len)
{
	const char *item;
	size_t k;

	snprintf(out, len, "-");
	for (int32_t i = 0; n >= 0 && dist_list_next(&list, ',', &item, &k); i++)
		if (i == n) {
			snprintf(out, len, "%.*s", (int)k, item);
			return;
		}
}

static void print_row(FILE *out, const char *prefix, uint32_t local_rank, const char *gpus,
                      const struct dist_bind_plan *plan)
{
	char cpus[1024], gpu[64];

	if (dist_cpu_list_format(plan->cpus, plan->ncpus, cpus, sizeof(cpus)))
		snprintf(cpus, sizeof(cpus), "(%zu CPUs)", plan->ncpus);
	list_entry(gpus, plan->gpu, gpu, sizeof(gpu));
	fprintf(out, "%s%-10u %-6s %-24s %-10s %zu\n", prefix, local_rank, gpu, cpus,
	        plan->nic[0] ? plan->nic : "-", plan->ncpus);
}

static void free_view(struct topo_view *view)
{
	for (uint32_t i = 0; view->localities && i < view->ngpus; i++)
		free((void *)view->localities[i].cpus);
	free(view->localities);
	free(view->allowed);
}

static struct dist_bind_input input_of(const struct topo_view *view, uint32_t local_size,
                                       struct bind_slurm slurm)
{
	return (struct dist_bind_input){view->allowed,    view->nallowed, view->ngpus,
	                                view->localities, local_size,     view->task_bound,
	                                slurm.cpus,       slurm.gpus};
}

/* Once for the step: which of its own bindings the shim leaves to Slurm.
 * Not for --gpus-per-task alone, whose per-task GPUs are the usual case. */
static void say_slurm_binds(const struct dist_world *w, struct bind_slurm slurm)
{
	bool gpus = slurm.gpus && strncmp(slurm.gpu_bind, "per_task:", 9) != 0;

	if (w->rank != 0 || !(slurm.cpus || gpus))
		return;
	msg_info("%s%s%s%.*s%s",
	         slurm.cpus ? "--cpu-bind given: each task keeps the CPUs Slurm "
	                      "bound it to"
	                    : "",
	         slurm.cpus && gpus ? "; " : "", gpus ? "Slurm binds GPUs to tasks (" : "",
	         gpus ? (int)slurm.gpu_bind_len : 0, gpus ? slurm.gpu_bind : "",
	         gpus ? "): each task's GPU is the first of those it sees (device 0)" : "");
}

int bind_explain_node(const char *topology, const char *gpus, uint32_t tasks, struct dist_err *err)
{
	struct topo_view view;
	struct dist_bind_input in;
	int rc = 0;

	if (topo_read(topology, gpus, &view, err))
		return -1;
	in = input_of(&view, tasks, (struct bind_slurm){.cpus = false});
	printf("%-10s %-6s %-24s %-10s %s\n", "local_rank", "gpu", "cpus", "nic",
	       "OMP_NUM_THREADS");
	for (uint32_t r = 0; r < tasks && rc == 0; r++) {
		struct dist_bind_plan plan;

		rc = dist_bind_plan_for(&in, r, &plan, err);
		if (rc == 0)
			print_row(stdout, "", r, gpus, &plan);
		dist_bind_plan_free(&plan);
	}
	free_view(&view);
	return rc;
}

/* NCCL_IB_HCA (and over RoCE NCCL_IB_GID_INDEX) for the plan's NIC, unless
 * ibverbs shows its port down; a NIC hwloc sees but ibverbs cannot open is
 * named as it is, without a GID. */
static int export_nic_vars(const struct dist_bind_plan *plan, const struct bind_nic *nic,
                           struct dist_err *err)
{
	char text[64];

	if (!plan->nic[0] || !nic->active)
		return 0; /* no NIC, or its port is down: NCCL would fail over it */
	/* NCCL matches HCA names by prefix unless the name starts with '='. */
	snprintf(text, sizeof(text), "=%s", plan->nic);
	if (carried_setenv_default("NCCL_IB_HCA", text) != 0)
		return dist_err_set(err, "cannot set NCCL_IB_HCA");
	snprintf(text, sizeof(text), "%d", nic->gid);
	if (nic->gid >= 0 && carried_setenv_default("NCCL_IB_GID_INDEX", text) != 0)
		return dist_err_set(err, "cannot set NCCL_IB_GID_INDEX");
	return 0;
}

static int export_binding_vars(const struct dist_bind_plan *plan, const struct bind_nic *nic,
                               struct dist_err *err)
{
	char text[64];

	snprintf(text, sizeof(text), "%zu", plan->ncpus);
	if (carried_setenv_default("OMP_NUM_THREADS", text) != 0)
		return dist_err_set(err, "cannot set OMP_NUM_THREADS");
	return export_nic_vars(plan, nic, err);
}

/* The variables a person checks first, as the task will see them. */
static void print_key_variables(void)
{
	static const char *const names[] = {
	        "MASTER_ADDR",       "MASTER_PORT",        "RANK",
	        "LOCAL_RANK",        "WORLD_SIZE",         "CUDA_VISIBLE_DEVICES",
	        "OMP_NUM_THREADS",   "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA",
	        "NCCL_IB_GID_INDEX", "TF_CONFIG",          "RANK_TABLE_FILE",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (getenv(names[i]))
			fprintf(stderr, "    %s=%s\n", names[i], getenv(names[i]));
}

/* --explain in a step: this task's line of the node's table, then its key
 * variables. */
static void explain_task(const struct dist_world *w, const char *gpus,
                         const struct dist_bind_plan *plan)
{
	char host[64] = "?", prefix[128];

	gethostname(host, sizeof(host) - 1);
	snprintf(prefix, sizeof(prefix), "dist-shim: %s rank %u: ", host, w->rank);
	print_row(stderr, prefix, w->local_rank, gpus, plan);
	print_key_variables();
}

/* Waiting longer for the node's first task to share its plan or topology
 * would cost more than discovering the topology again. */
#define TOPOLOGY_WAIT_S 10

/* Plans this task from the topology (hwloc); the node's first task also
 * shares the plan of every task of the node (SHARE, when open). */
static int plan_from_topology(const struct dist_world *w, const struct stepdir *share,
                              const char *gpus, struct bind_slurm slurm,
                              struct dist_bind_plan *plan, struct bind_nic *nic,
                              struct dist_err *err)
{
	struct topo_view view;
	struct dist_bind_input in;
	struct dist_err ignored;
	int rc;

	if (share ? topo_read_shared(share, w->local_rank == 0, TOPOLOGY_WAIT_S, gpus, &view, err)
	          : topo_read(NULL, gpus, &view, err))
		return -1;
	in = input_of(&view, w->local_size, slurm);
	/* The plan first: the node's other tasks wait for it; the topology is
	 * only for those that cannot take their line of it. */
	if (share && w->local_rank == 0) {
		bind_plan_share(share, &in, gpus, &ignored);
		if (topo_share(share, err)) {
			free_view(&view);
			return -1;
		}
	}
	rc = dist_bind_plan_for(&in, w->local_rank, plan, err);
	if (rc == 0 && !slurm.cpus)
		rc = topo_bind(plan->cpus, plan->ncpus, err);
	if (rc == 0)
		*nic = bind_nic_inspect(plan);
	free_view(&view);
	return rc;
}

int bind_task(const struct dist_world *w, const struct stepdir *share, struct bind_slurm slurm,
              bool explain, struct dist_err *err)
{
	const char *gpus = getenv("CUDA_VISIBLE_DEVICES");
	struct dist_bind_plan plan = {.cpus = NULL};
	struct bind_nic nic = {.active = true, .gid = -1};
	int rc = 1;

	/* Under Slurm's GPU binding each task numbers its GPUs from 0 (the
	 * devices cgroup, CUDA_VISIBLE_DEVICES): one task's plan or topology
	 * would name another's GPUs. Each plans alone. */
	if (slurm.gpus)
		share = NULL;
	/* Every task but the node's first: its line of the node's plan. */
	if (share && w->local_rank != 0)
		rc = bind_plan_take(share, w->local_rank, gpus, TOPOLOGY_WAIT_S, &plan, &nic, err);
	if (rc == 0) {
		if (!slurm.cpus)
			rc = bind_plan_apply_cpus(plan.cpus, plan.ncpus, err);
	} else {
		dist_bind_plan_free(&plan);
		rc = plan_from_topology(w, share, gpus, slurm, &plan, &nic, err);
	}
	say_slurm_binds(w, slurm);
	if (rc == 0)
		rc = export_binding_vars(&plan, &nic, err);
	if (rc == 0 && explain)
		explain_task(w, gpus, &plan);
	dist_bind_plan_free(&plan);
	return rc;
}
