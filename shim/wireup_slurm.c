/* Wire-up without PMIx (a site whose MpiDefault is none): everything comes
 * from the variables Slurm sets in every task and from slurmctld (which node
 * runs which ranks, the nodes' addresses). With no exchange, every task
 * computes the same port from the job and step ids, and the master address
 * is the address Slurm itself uses for rank 0's node (its NodeAddr). */
#include <errno.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_protocol.h"
#include "dist_slurmenv.h"
#include "dist_stepnodes.h"
#include "msg.h"
#include "netlocal.h"
#include "slurm_compat.h"
#include "wireup.h"

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
 * did: then no task asks slurmctld for what it holds. */
static struct dist_stepnodes given;
static bool have_given;

static void read_given(const struct dist_world *w)
{
	const char *text = getenv(DIST_SHIM_ENV_STEP_NODES);
	struct dist_err ignored;
	uint32_t job, step;

	have_given = false;
	if (!text || dist_stepnodes_parse(text, &given, &ignored))
		return;
	/* Only this very step's: a value from an enclosing step would mislead. */
	if (env_u32("SLURM_JOB_ID", &job, &ignored) == 0 &&
	    env_u32("SLURM_STEP_ID", &step, &ignored) == 0 && given.job == job &&
	    given.step == step && given.nnodes == w->nnodes)
		have_given = true;
	else
		dist_stepnodes_free(&given);
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
	slurm_step_id_t id = {.step_het_comp = NO_VAL};
	slurm_step_layout_t *layout;
	uint32_t placed = 0;
	int rc = -1;

	if (env_u32("SLURM_JOB_ID", &id.job_id, err) || env_u32("SLURM_STEP_ID", &id.step_id, err))
		return -1;
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
		        id.job_id, id.step_id, layout->node_cnt, layout->task_cnt, nnodes, size);
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
				        id.job_id, id.step_id);
				goto out;
			} else {
				node_of[layout->tids[i][j]] = i;
			}
	rc = placed == size ? 0
	                    : dist_err_set(err, "slurmctld's layout of step %u.%u misses ranks",
	                                   id.job_id, id.step_id);
out:
	slurm_job_step_layout_free(layout);
	return rc;
}

/* The step's node order (rank 0's node first, then the nodes by their
 * lowest rank, as under PMIx and PMI2) in ORDER (NNODES Slurm node
 * indexes, malloc'd), and this task's node_rank in it. Which node runs
 * which ranks is known only to slurmctld: rank 0 need not be on the first
 * node Slurm lists (--distribution=arbitrary with a -w list out of order). */
static int read_node_order(const struct wireup_request *req, struct dist_world *w,
                           const uint32_t *counts, uint32_t **order, struct dist_err *err)
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
	if (have_given) {
		for (uint32_t k = 0; k < w->nnodes; k++)
			(*order)[k] = given.order ? given.order[k] : k;
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

/* The NodeAddr ADDR of NODE (NULL: the step's first node) as an IPv4
 * address. */
static int resolve_node_addr(const char *node, const char *addr, char *addr_out,
                             struct dist_err *err)
{
	uint32_t ip;

	if (netlocal_resolve(addr, &ip) != 0)
		return dist_err_set(err,
		                    "NodeAddr '%s' of %s%s does not resolve to an IPv4 "
		                    "address; export MASTER_ADDR or launch with --mpi=pmix",
		                    addr, node ? "node " : "the step's first node",
		                    node ? node : "");
	dist_ipv4_format(ip, addr_out);
	return 0;
}

/* NODE's NodeAddr in MSG, as an IPv4 address. */
static int address_of(const node_info_msg_t *msg, const char *node, char *addr_out,
                      struct dist_err *err)
{
	const node_info_t *info = NULL;

	for (uint32_t i = 0; msg && i < msg->record_count && !info; i++)
		if (msg->node_array[i].name && strcmp(msg->node_array[i].name, node) == 0)
			info = &msg->node_array[i];
	if (!info || !info->node_addr)
		return dist_err_set(
		        err,
		        "slurmctld did not describe node %s; export MASTER_ADDR or launch "
		        "with --mpi=pmix",
		        node);
	return resolve_node_addr(node, info->node_addr, addr_out, err);
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

/* The node table without an exchange: names in node order from
 * SLURM_STEP_NODELIST (libslurm's hostlist), tasks from
 * SLURM_STEP_TASKS_PER_NODE, addresses from one RPC; every node is taken to
 * have as many GPUs as this task sees, since nothing tells otherwise. */
static int fill_node_table(struct dist_world *w, const uint32_t *counts, const uint32_t *order,
                           const struct dist_addr_list *local, struct dist_err *err)
{
	static struct dist_node *table;
	node_info_msg_t *msg = NULL;
	dist_hostlist hl = NULL;
	int rc = -1;

	free(table);
	table = calloc(w->nnodes, sizeof(*table));
	if (!table)
		return dist_err_set(err, "out of memory");
	/* srun's plugin gave every node's NodeAddr, in the step's order. */
	if (have_given && given.naddrs == w->nnodes)
		msg = NULL;
	else if (load_nodes(NULL, &msg, err))
		return -1;
	hl = slurm_hostlist_create(getenv("SLURM_STEP_NODELIST"));
	for (uint32_t i = 0; hl && i < w->nnodes; i++) {
		char *name = slurm_hostlist_shift(hl);
		uint32_t k = 0; /* Slurm's node i is the Kth in the step's order */
		int bad;

		while (order[k] != i)
			k++;
		bad = !name || (msg ? address_of(msg, name, table[k].addr, err)
		                    : resolve_node_addr(name, given.addrs[k], table[k].addr, err));
		free(name);
		if (bad)
			goto out;
		table[k].ntasks = counts[i];
		table[k].gpus = w->local_gpus;
	}
	if (!hl || slurm_hostlist_count(hl) != 0) {
		dist_err_set(err, "SLURM_STEP_NODELIST '%s' does not list %u nodes",
		             getenv("SLURM_STEP_NODELIST"), w->nnodes);
		goto out;
	}
	/* This node's subnet is known locally; the others' are not. */
	for (size_t i = 0; i < local->count; i++) {
		char addr[DIST_ADDR_MAX];

		dist_ipv4_format(local->a[i].addr, addr);
		if (strcmp(addr, table[w->node_rank].addr) == 0)
			table[w->node_rank].prefix = local->a[i].prefix;
	}
	w->nodes = table;
	rc = 0;
out:
	if (hl)
		slurm_hostlist_destroy(hl);
	slurm_free_node_info_msg(msg);
	return rc;
}

/* Node INDEX of SLURM_STEP_NODELIST, in Slurm's order. */
static int nth_node(uint32_t index, char *name, size_t len, struct dist_err *err)
{
	dist_hostlist hl = slurm_hostlist_create(getenv("SLURM_STEP_NODELIST"));
	char *node = NULL;
	int rc = 0;

	for (uint32_t i = 0; hl && i <= index; i++) {
		free(node);
		node = slurm_hostlist_shift(hl);
	}
	if (!node || (size_t)snprintf(name, len, "%s", node) >= len)
		rc = dist_err_set(err, "cannot read node %u of SLURM_STEP_NODELIST '%s'", index,
		                  getenv("SLURM_STEP_NODELIST"));
	free(node);
	if (hl)
		slurm_hostlist_destroy(hl);
	return rc;
}

static int read_master_addr(const struct wireup_request *req, const uint32_t *order,
                            struct dist_world *w, struct dist_err *err)
{
	node_info_msg_t *msg = NULL;
	char node[256];
	int rc;

	if (req->user_master_addr) {
		snprintf(w->master_addr, sizeof(w->master_addr), "%s", req->user_master_addr);
		return 0;
	}
	if (w->nodes) {
		snprintf(w->master_addr, sizeof(w->master_addr), "%s", w->nodes[0].addr);
		return 0;
	}
	if (have_given)
		return resolve_node_addr(NULL, given.addrs[0], w->master_addr, err);
	if (nth_node(order[0], node, sizeof(node), err) || load_nodes(node, &msg, err))
		return -1;
	rc = address_of(msg, node, w->master_addr, err);
	slurm_free_node_info_msg(msg);
	return rc;
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
	if (env_u32("SLURM_JOB_ID", &jobid, err) || env_u32("SLURM_STEP_ID", &stepid, err))
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

int wireup_slurm(const struct wireup_request *req, struct dist_world *w, struct dist_err *err)
{
	struct dist_addr_list local;
	uint32_t *counts = NULL, *order = NULL;
	int rc = read_ranks(w, &counts, err);

	if (rc == 0) {
		read_given(w);
		rc = -1;
		if (read_node_order(req, w, counts, &order, err) == 0 &&
		    netlocal_addrs(&local, err) == 0 &&
		    (!req->needs_nodes || fill_node_table(w, counts, order, &local, err) == 0) &&
		    read_master_addr(req, order, w, err) == 0 &&
		    read_master_port(req, w, err) == 0) {
			wireup_find_master_ifname(w, &local);
			rc = 0;
		}
		dist_stepnodes_free(&given);
		have_given = false;
	}
	free(order);
	free(counts);
	return rc;
}
