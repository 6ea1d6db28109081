/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Wire-up without PMIx (a site whose MpiDefault is none): everything comes
 * from the variables Slurm sets in every task and from slurmctld (which node
 * runs which ranks, the nodes' addresses). With no exchange, every task
 * computes the same port from the job and step ids, and the master address
 * is the address Slurm itself uses for rank 0's node (its NodeAddr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "base/msg.h"
#include "dist_protocol.h"
#include "dist_slurmenv.h"
#include "dist_stepnodes.h"
#include "node/netlocal.h"
#include "node/stepids.h"
#include "wireup/wireup.h"

bool wireup_slurm_available(void)
{
	return getenv("SLURM_PROCID") && getenv("SLURM_STEP_NODELIST");
}

static int env_u32(const char *name, uint32_t *value, struct dist_err *err)
{
	const char *text = getenv(name);

	if (!text)
		return dist_err_set(err, "%s is not set; is this a Slurm step?", name);
	if (dist_parse_u32(text, value) != 0)
		return dist_err_set(err, "%s='%s' is not a number", name, text);
	return 0;
}

/* What srun's plugin found out for this step (spank/stepnodes.h), when it
 * did (HAVE): then no task asks slurmctld for what it holds. Read and freed
 * by wireup_slurm. */
struct given {
	struct dist_stepnodes nodes;
	bool have;
};

static void read_given(const struct dist_world *w, struct given *given)
{
	const char *text = getenv(DIST_SHIM_ENV_STEP_NODES);
	struct dist_err ignored;
	uint32_t job, step;

	given->have = false;
	if (!text || dist_stepnodes_parse(text, &given->nodes, &ignored))
		return;
	/* Only this very step's: a value from an enclosing step would mislead. */
	if (stepids_read(&job, &step, &ignored) == 0 && given->nodes.job == job &&
	    given->nodes.step == step && given->nodes.nnodes == w->nnodes)
		given->have = true;
	else
		dist_stepnodes_free(&given->nodes);
}

/* Tasks on each node of the step, in node order (NNODES entries, malloc'd). */
static int read_tasks_per_node(const struct dist_world *w, uint32_t **counts, struct dist_err *err)
{
	const char *text = getenv("SLURM_STEP_TASKS_PER_NODE");
	size_t n;

	if (!text)
		return dist_err_set(err,
		                    "SLURM_STEP_TASKS_PER_NODE is not set; is this a Slurm step?");
	*counts = calloc(w->nnodes ? w->nnodes : 1, sizeof(**counts));
	if (!*counts)
		return dist_err_set(err, "out of memory");
	if (dist_tasks_per_node_parse(text, *counts, w->nnodes, &n, err))
		return -1;
	if (n != w->nnodes)
		return dist_err_set(err, "SLURM_STEP_TASKS_PER_NODE '%s' does not match %u nodes",
		                    text, w->nnodes);
	return 0;
}

static int read_ranks(struct dist_world *w, uint32_t **counts, struct dist_err *err)
{
	if (env_u32("SLURM_PROCID", &w->rank, err) || env_u32("SLURM_NTASKS", &w->size, err) ||
	    env_u32("SLURM_LOCALID", &w->local_rank, err) ||
	    env_u32("SLURM_NODEID", &w->node_rank, err) ||
	    env_u32("SLURM_STEP_NUM_NODES", &w->nnodes, err) || read_tasks_per_node(w, counts, err))
		return -1;
	if (w->node_rank < w->nnodes)
		w->local_size = (*counts)[w->node_rank];
	if (w->rank >= w->size || w->node_rank >= w->nnodes || w->local_rank >= w->local_size)
		return dist_err_set(err,
		                    "inconsistent Slurm task variables (rank %u of %u, local %u "
		                    "of %u, node %u of %u)",
		                    w->rank, w->size, w->local_rank, w->local_size, w->node_rank,
		                    w->nnodes);
	w->local_gpus = wireup_local_gpus();
	msg_set_rank(w->rank); /* errors from here on name the rank */
	return 0;
}

int wireup_slurm_node_of(uint32_t size, uint32_t nnodes, uint32_t *node_of, struct dist_err *err)
{
	const struct slurmctld_module *ctld;
	uint32_t job, step;

	if (stepids_read(&job, &step, err) || !(ctld = module_slurm(err)))
		return -1;
	return ctld->step_layout(job, step, size, nnodes, node_of, err);
}

/* The step's node order (rank 0's node first, then the nodes by their
 * lowest rank, as under PMIx and PMI2) in ORDER (NNODES Slurm node
 * indexes, malloc'd), and this task's node_rank in it. Which node runs
 * which ranks is known only to slurmctld: rank 0 need not be on the first
 * node Slurm lists (--distribution=arbitrary with a -w list out of order). */
static int read_node_order(const struct wireup_request *req, const struct given *given,
                           struct dist_world *w, const uint32_t *counts, uint32_t **order,
                           struct dist_err *err)
{
	uint32_t *node_of = calloc(w->size, sizeof(*node_of));
	uint32_t *leaders = calloc(w->nnodes, sizeof(*leaders));
	uint32_t *seen = calloc(w->nnodes, sizeof(*seen));
	bool failed;
	int rc = -1;

	*order = calloc(w->nnodes, sizeof(**order));
	if (!node_of || !leaders || !seen || !*order) {
		dist_err_set(err, "out of memory");
		goto out;
	}
	if (given->have) {
		for (uint32_t k = 0; k < w->nnodes; k++)
			(*order)[k] = given->nodes.order ? given->nodes.order[k] : k;
		goto renumber;
	}
	/* One node is node 0. With the user's MASTER_ADDR and no node table
	 * the layout only numbers the nodes: if slurmctld cannot say, Slurm's
	 * order will do rather than failing the step. */
	failed = w->nnodes > 1 && wireup_slurm_node_of(w->size, w->nnodes, node_of, err) != 0;
	if (w->nnodes == 1 || (failed && req->user_master_addr && !req->needs_nodes)) {
		for (uint32_t k = 0; k < w->nnodes; k++)
			(*order)[k] = k;
		rc = 0;
		goto out;
	}
	if (failed)
		goto out;
	for (uint32_t r = w->size; r-- > 0;) {
		leaders[node_of[r]] = r; /* ends at each node's lowest rank */
		seen[node_of[r]]++;
	}
	for (uint32_t i = 0; i < w->nnodes; i++)
		if (seen[i] != counts[i] || node_of[w->rank] != w->node_rank) {
			dist_err_set(err, "slurmctld and this task's variables disagree on the "
			                  "step's layout");
			goto out;
		}
	if (dist_nodes_by_leader(leaders, w->nnodes, *order)) {
		dist_err_set(err, "slurmctld's layout of the step has a node without tasks");
		goto out;
	}
renumber:
	for (uint32_t k = 0; k < w->nnodes; k++)
		if ((*order)[k] == w->node_rank) {
			w->node_rank = k;
			break;
		}
	rc = 0;
out:
	free(node_of);
	free(leaders);
	free(seen);
	return rc;
}

/* The NodeAddr ADDR of the step's node NAME (or, from srun's plugin, the
 * step's Kth node) as an IPv4 address. */
static int resolve_node_addr(const char *name, uint32_t k, const char *addr, char *addr_out,
                             struct dist_err *err)
{
	uint32_t ip;
	char index[32];

	snprintf(index, sizeof(index), "the step's node %u", k);
	if (netlocal_resolve(addr, &ip) != 0)
		return dist_err_set(err,
		                    "NodeAddr '%s' of %s%s does not resolve to an IPv4 address; "
		                    "export MASTER_ADDR or launch with --mpi=pmix",
		                    addr, name ? "node " : "", name ? name : index);
	dist_ipv4_format(ip, addr_out);
	return 0;
}

/* The names and NodeAddrs of SLURM_STEP_NODELIST's nodes in Slurm's order,
 * from slurmctld (only node ONLY's with ONLY < NNODES): see base/module.h. */
struct step_addrs {
	char **names, **addrs;
	uint32_t count;
};

static void step_addrs_free(struct step_addrs *a)
{
	for (uint32_t i = 0; i < a->count; i++) {
		free(a->names ? a->names[i] : NULL);
		free(a->addrs ? a->addrs[i] : NULL);
	}
	free(a->names);
	free(a->addrs);
	memset(a, 0, sizeof(*a));
}

static int ask_step_addrs(uint32_t nnodes, uint32_t only, struct step_addrs *a,
                          struct dist_err *err)
{
	const char *list = getenv("SLURM_STEP_NODELIST");
	const struct slurmctld_module *ctld = module_slurm(err);

	memset(a, 0, sizeof(*a));
	if (!ctld || ctld->node_addrs(list, only, &a->names, &a->addrs, &a->count, err))
		return -1;
	if (a->count != nnodes)
		return dist_err_set(err, "SLURM_STEP_NODELIST '%s' does not list %u nodes", list,
		                    nnodes);
	return 0;
}

/* The node table without an exchange: tasks from SLURM_STEP_TASKS_PER_NODE,
 * addresses from srun's plugin or else from one RPC (names from
 * SLURM_STEP_NODELIST, libslurm's hostlist); every node is taken to have as
 * many GPUs as this task sees, since nothing tells otherwise. The table is
 * malloc'd and, once in W, the world's up to the exec: nothing frees it. */
static int fill_node_table(const struct given *given, struct dist_world *w, const uint32_t *counts,
                           const uint32_t *order, const struct dist_addr_list *local,
                           struct dist_err *err)
{
	struct dist_node *table;
	/* srun's plugin gave every node's NodeAddr, in the step's order. */
	bool given_all = given->have && given->nodes.naddrs == w->nnodes;
	struct step_addrs asked = {NULL, NULL, 0};
	int rc = -1;

	table = calloc(w->nnodes, sizeof(*table));
	if (!table)
		return dist_err_set(err, "out of memory");
	if (!given_all && ask_step_addrs(w->nnodes, UINT32_MAX, &asked, err))
		goto out;
	for (uint32_t i = 0; i < w->nnodes; i++) {
		uint32_t k = 0; /* Slurm's node i is the Kth in the step's order */

		while (order[k] != i)
			k++;
		if (given_all
		            ? resolve_node_addr(NULL, k, given->nodes.addrs[k], table[k].addr, err)
		            : resolve_node_addr(asked.names[i], k, asked.addrs[i], table[k].addr,
		                                err))
			goto out;
		table[k].ntasks = counts[i];
		table[k].gpus = w->local_gpus;
		table[k].slurm_index = i;
	}
	/* This node's subnet is known locally; the others' are not. */
	for (size_t i = 0; i < local->count; i++) {
		char addr[DIST_ADDR_MAX];

		dist_ipv4_format(local->a[i].addr, addr);
		if (strcmp(addr, table[w->node_rank].addr) == 0)
			table[w->node_rank].prefix = local->a[i].prefix;
	}
	w->nodes = table;
	table = NULL;
	rc = 0;
out:
	free(table);
	step_addrs_free(&asked);
	return rc;
}

static int read_master_addr(const struct wireup_request *req, const struct given *given,
                            const uint32_t *order, struct dist_world *w, struct dist_err *err)
{
	struct step_addrs asked;
	int rc;

	if (req->user_master_addr) {
		snprintf(w->master_addr, sizeof(w->master_addr), "%s", req->user_master_addr);
		return 0;
	}
	if (w->nodes) {
		snprintf(w->master_addr, sizeof(w->master_addr), "%s", w->nodes[0].addr);
		return 0;
	}
	if (given->have)
		return resolve_node_addr(NULL, 0, given->nodes.addrs[0], w->master_addr, err);
	rc = ask_step_addrs(w->nnodes, order[0], &asked, err) ||
	     resolve_node_addr(asked.names[order[0]], 0, asked.addrs[order[0]], w->master_addr,
	                       err);
	step_addrs_free(&asked);
	return rc ? -1 : 0;
}

/* Every task computes the same port; only rank 0 can check it, and with no
 * exchange it cannot move to another one, so a taken port is an error. */
static int read_master_port(const struct wireup_request *req, struct dist_world *w,
                            struct dist_err *err)
{
	uint32_t jobid, stepid;

	if (wireup_user_port(req, &w->master_port, err))
		return -1;
	if (w->master_port)
		return 0;
	if (stepids_read(&jobid, &stepid, err))
		return -1;
	w->master_port = wireup_first_port(&req->ports, jobid, stepid);
	if (w->rank == 0 && !netlocal_port_free(w->master_port, NULL))
		return dist_err_set(err,
		                    "port %u is in use on this node and without PMIx the tasks "
		                    "cannot agree on another; launch with --mpi=pmix or export "
		                    "MASTER_PORT",
		                    w->master_port);
	return 0;
}

/* True when LISTED (COUNT names, Slurm's order) is this step's node list as
 * the node table knows it: as many nodes, and this node at its place. */
static bool names_this_step(const struct dist_world *w, char **listed, uint32_t count)
{
	const char *me = getenv("SLURMD_NODENAME");
	uint32_t at;

	if (count != w->nnodes || w->node_rank >= w->nnodes || !me)
		return false;
	at = w->nodes[w->node_rank].slurm_index;
	return at < count && strcmp(listed[at], me) == 0;
}

int wireup_slurm_node_names(const struct dist_world *w, char ***names, struct dist_err *err)
{
	const char *list = getenv("SLURM_STEP_NODELIST");
	const struct slurmctld_module *ctld;
	char **listed = NULL;
	uint32_t count = 0;
	int rc = 0;

	*names = NULL;
	if (!list || !w->nodes)
		return 0;
	if (!(ctld = module_slurm(err)) || ctld->node_names(list, &listed, &count, err))
		return -1;
	/* Another launcher's step inside an allocation (mpirun starting the
	 * shim) sees a list that is not its own: no names then. */
	if (names_this_step(w, listed, count) && !(*names = calloc(count, sizeof(**names))))
		rc = dist_err_set(err, "out of memory");
	for (uint32_t k = 0; *names && k < count; k++) {
		uint32_t at = w->nodes[k].slurm_index;

		if (at >= count || !listed[at]) {
			rc = dist_err_set(
			        err, "the step's nodes do not each have one place in '%s'", list);
			break;
		}
		(*names)[k] = listed[at];
		listed[at] = NULL;
	}
	for (uint32_t i = 0; i < count; i++)
		free(listed[i]);
	free(listed);
	if (rc && *names) {
		for (uint32_t k = 0; k < count; k++)
			free((*names)[k]);
		free(*names);
		*names = NULL;
	}
	return rc;
}

int wireup_slurm(const struct wireup_request *req, struct dist_world *w, struct dist_err *err)
{
	struct dist_addr_list local;
	struct given given = {.have = false};
	uint32_t *counts = NULL, *order = NULL;
	int rc = read_ranks(w, &counts, err);

	if (rc == 0) {
		read_given(w, &given);
		rc = -1;
		if (read_node_order(req, &given, w, counts, &order, err) == 0 &&
		    netlocal_addrs(&local, err) == 0 &&
		    (!req->needs_nodes ||
		     fill_node_table(&given, w, counts, order, &local, err) == 0) &&
		    read_master_addr(req, &given, order, w, err) == 0 &&
		    read_master_port(req, w, err) == 0) {
			wireup_find_master_ifname(w, &local);
			rc = 0;
		}
		dist_stepnodes_free(&given.nodes);
	}
	free(order);
	free(counts);
	return rc;
}
