/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "stepnodes.h"

#include <slurm/slurm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist_protocol.h"
#include "dist_slurmenv.h"
#include "dist_stepnodes.h"
#include "slurm_compat.h"

/* Beyond this the table would crowd every task's environment (and near
 * 128 KiB no program could be started): only the first node's address goes,
 * and tasks that need every node's ask slurmctld as before. */
#define ALL_ADDRS_MAX (64 * 1024)

/* The step's order: nodes by their lowest rank (ORDER, nnodes entries). */
static int order_of(const slurm_step_layout_t *layout, uint32_t *order)
{
	uint32_t *leaders = calloc(layout->node_cnt, sizeof(*leaders));
	int rc = -1;

	for (uint32_t i = 0; leaders && i < layout->node_cnt; i++) {
		leaders[i] = UINT32_MAX;
		for (uint32_t j = 0; j < layout->tasks[i]; j++)
			if (layout->tids[i][j] < leaders[i])
				leaders[i] = layout->tids[i][j];
	}
	if (leaders)
		rc = dist_nodes_by_leader(leaders, layout->node_cnt, order);
	free(leaders);
	return rc;
}

/* The names of the step's nodes in Slurm's order (NNODES, malloc'd). */
static char **names_of(const char *node_list, uint32_t nnodes)
{
	dist_hostlist hl = slurm_hostlist_create(node_list);
	char **names = calloc(nnodes, sizeof(*names));
	uint32_t n = 0;

	while (hl && names && n < nnodes && (names[n] = slurm_hostlist_shift(hl)))
		n++;
	if (hl)
		slurm_hostlist_destroy(hl);
	if (names && n == nnodes)
		return names;
	for (uint32_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	return NULL;
}

static const char *node_addr(const node_info_msg_t *msg, const char *name)
{
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		if (msg->node_array[i].name && strcmp(msg->node_array[i].name, name) == 0)
			return msg->node_array[i].node_addr;
	return NULL;
}

/* The NodeAddr of the first node of the step's order, or of all of them:
 * one RPC either way. */
static int fill_addrs(struct dist_stepnodes *s, char **names, bool all)
{
	node_info_msg_t *msg = NULL;
	int rc = all ? slurm_load_node((time_t)0, &msg, SHOW_ALL)
	             : slurm_load_node_single(&msg, names[s->order[0]], SHOW_ALL);

	if (rc != SLURM_SUCCESS || !msg)
		return -1;
	s->naddrs = all ? s->nnodes : 1;
	s->addrs = calloc(s->naddrs, sizeof(*s->addrs));
	for (uint32_t k = 0; s->addrs && k < s->naddrs; k++) {
		const char *addr = node_addr(msg, names[s->order[k]]);

		if (!addr || !(s->addrs[k] = strdup(addr)))
			rc = -1;
	}
	slurm_free_node_info_msg(msg);
	return s->addrs && rc == SLURM_SUCCESS ? 0 : -1;
}

static int format_within_limit(struct dist_stepnodes *s, struct dist_buf *out)
{
	struct dist_err ignored;

	if (dist_stepnodes_format(s, out, &ignored))
		return -1;
	if (out->len <= ALL_ADDRS_MAX || s->naddrs == 1)
		return 0;
	s->naddrs = 1; /* the first stays first */
	dist_buf_reset(out);
	return dist_stepnodes_format(s, out, &ignored);
}

static void publish(uint32_t job, uint32_t step, const slurm_step_layout_t *layout, bool all)
{
	struct dist_stepnodes s = {.job = job, .step = step, .nnodes = layout->node_cnt};
	struct dist_buf text = DIST_BUF_INIT;
	char **names = names_of(layout->node_list, layout->node_cnt);
	uint32_t filled = 0; /* addresses allocated: format may hand on fewer */

	s.order = calloc(s.nnodes, sizeof(*s.order));
	if (names && s.order && order_of(layout, s.order) == 0 && fill_addrs(&s, names, all) == 0) {
		filled = s.naddrs;
		if (format_within_limit(&s, &text) == 0)
			setenv(DIST_SHIM_ENV_STEP_NODES, dist_buf_str(&text), 1);
	} else if (s.addrs) {
		filled = s.naddrs;
	}
	for (uint32_t k = 0; s.addrs && k < filled; k++)
		free(s.addrs[k]);
	free(s.addrs);
	free(s.order);
	for (uint32_t i = 0; names && i < layout->node_cnt; i++)
		free(names[i]);
	free(names);
	dist_buf_free(&text);
}

void stepnodes_publish(spank_t sp, bool all_addrs)
{
	slurm_step_id_t id = {.step_het_comp = NO_VAL};
	slurm_step_layout_t *layout;

	/* A value from an enclosing step must not pass for this one's. */
	unsetenv(DIST_SHIM_ENV_STEP_NODES);
	if (spank_get_item(sp, S_JOB_ID, &id.job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &id.step_id) != ESPANK_SUCCESS)
		return;
	layout = slurm_job_step_layout_get(&id);
	if (!layout)
		return;
	if (layout->node_cnt > 0 && layout->tasks && layout->tids && layout->node_list)
		publish(id.job_id, id.step_id, layout, all_addrs);
	slurm_job_step_layout_free(layout);
}
