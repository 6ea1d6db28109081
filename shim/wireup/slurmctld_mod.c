/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What only slurmctld can tell a task of a step without PMI (libslurm):
 * which node runs which rank, and the nodes' NodeAddrs. A module of its
 * own (base/module.h): most steps never ask, and libslurm is the largest
 * library the shim would otherwise map. */
#include <errno.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "slurm_compat.h"

static int step_layout(uint32_t job, uint32_t step, uint32_t size, uint32_t nnodes,
                       uint32_t *node_of, struct dist_err *err)
{
	slurm_step_id_t id = {.job_id = job, .step_id = step, .step_het_comp = NO_VAL};
	slurm_step_layout_t *layout;
	uint32_t placed = 0;
	int rc = -1;

	slurm_init(NULL);
	layout = slurm_job_step_layout_get(&id);
	if (!layout || !layout->tasks || !layout->tids)
		return dist_err_set(err,
		                    "cannot ask slurmctld where the step's ranks run (%s); export "
		                    "MASTER_ADDR or launch with --mpi=pmix",
		                    slurm_strerror(errno));
	if (layout->node_cnt != nnodes || layout->task_cnt != size) {
		dist_err_set(
		        err,
		        "slurmctld describes step %u.%u with %u nodes and %u tasks, not %u and %u",
		        job, step, layout->node_cnt, layout->task_cnt, nnodes, size);
		goto out;
	}
	for (uint32_t r = 0; r < size; r++)
		node_of[r] = UINT32_MAX;
	for (uint32_t i = 0; i < nnodes; i++)
		for (uint32_t j = 0; j < layout->tasks[i]; j++, placed++)
			if (layout->tids[i][j] >= size ||
			    node_of[layout->tids[i][j]] != UINT32_MAX) {
				dist_err_set(
				        err,
				        "slurmctld's layout of step %u.%u is not one node per rank",
				        job, step);
				goto out;
			} else {
				node_of[layout->tids[i][j]] = i;
			}
	rc = placed == size ? 0
	                    : dist_err_set(err, "slurmctld's layout of step %u.%u misses ranks",
	                                   job, step);
out:
	slurm_job_step_layout_free(layout);
	return rc;
}

/* Asks slurmctld about NODE (NULL: every node) in one RPC. */
static int load_nodes(const char *node, node_info_msg_t **msg, struct dist_err *err)
{
	int rc;

	/* From 23.x libslurm finds its plugins (auth, serializer) only after
	 * slurm_init; 22.05 tolerates it too. */
	slurm_init(NULL);
	rc = node ? slurm_load_node_single(msg, (char *)node, SHOW_ALL)
	          : slurm_load_node((time_t)0, msg, SHOW_ALL);
	if (rc != SLURM_SUCCESS || !*msg)
		return dist_err_set(
		        err,
		        "cannot ask slurmctld for node addresses (%s); export MASTER_ADDR "
		        "or launch with --mpi=pmix",
		        slurm_strerror(errno));
	return 0;
}

/* NODE's NodeAddr in MSG (malloc'd), or NULL. */
static char *address_of(const node_info_msg_t *msg, const char *node)
{
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		if (msg->node_array[i].name && strcmp(msg->node_array[i].name, node) == 0)
			return msg->node_array[i].node_addr ? strdup(msg->node_array[i].node_addr)
			                                    : NULL;
	return NULL;
}

/* NODELIST's names in order (malloc'd), *COUNT of them. */
static char **expand(const char *nodelist, uint32_t *count, struct dist_err *err)
{
	dist_hostlist hl = slurm_hostlist_create(nodelist);
	char **names = NULL, *name;
	int n = hl ? slurm_hostlist_count(hl) : -1;

	*count = 0;
	if (n > 0 && (names = calloc((size_t)n, sizeof(*names))))
		while (*count < (uint32_t)n && (name = slurm_hostlist_shift(hl)))
			names[(*count)++] = name;
	if (hl)
		slurm_hostlist_destroy(hl);
	if (!names || *count != (uint32_t)n) {
		for (uint32_t i = 0; names && i < *count; i++)
			free(names[i]);
		free(names);
		dist_err_set(err, "cannot read the node list '%s'", nodelist ? nodelist : "");
		return NULL;
	}
	return names;
}

static int node_addrs(const char *nodelist, uint32_t only, char ***names_out, char ***addrs_out,
                      uint32_t *count, struct dist_err *err)
{
	node_info_msg_t *msg = NULL;
	char **names, **addrs;
	int rc = -1;

	*names_out = *addrs_out = NULL;
	if (!(names = expand(nodelist, count, err)))
		return -1;
	addrs = calloc(*count, sizeof(*addrs));
	if (!addrs)
		dist_err_set(err, "out of memory");
	else if (load_nodes(only < *count ? names[only] : NULL, &msg, err) == 0) {
		rc = 0;
		for (uint32_t i = 0; i < *count && rc == 0; i++)
			if ((only >= *count || i == only) &&
			    !(addrs[i] = address_of(msg, names[i])))
				rc = dist_err_set(err,
				                  "slurmctld did not describe node %s; export "
				                  "MASTER_ADDR or launch with --mpi=pmix",
				                  names[i]);
	}
	slurm_free_node_info_msg(msg);
	*names_out = names;
	*addrs_out = addrs;
	return rc;
}

static int node_names(const char *nodelist, char ***names, uint32_t *count, struct dist_err *err)
{
	*names = expand(nodelist, count, err);
	return *names ? 0 : -1;
}

MODULE_EXPORT const struct slurmctld_module dist_shim_module_slurm = {MODULE_ABI, step_layout,
                                                                      node_addrs, node_names};
