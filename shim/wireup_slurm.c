/* Wire-up without PMIx (a site whose MpiDefault is none): everything comes
 * from the variables Slurm sets in every task. With no exchange, every task
 * computes the same port from the job and step ids, and the master address
 * is the address Slurm itself uses for rank 0's node (its NodeAddr). */
#include <errno.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_slurmenv.h"
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

/* NODE's NodeAddr in MSG, as an IPv4 address. */
static int address_of(const node_info_msg_t *msg, const char *node, char *addr_out,
                      struct dist_err *err)
{
	const node_info_t *info = NULL;
	uint32_t addr;

	for (uint32_t i = 0; msg && i < msg->record_count && !info; i++)
		if (msg->node_array[i].name && strcmp(msg->node_array[i].name, node) == 0)
			info = &msg->node_array[i];
	if (!info || !info->node_addr)
		return dist_err_set(
		        err,
		        "slurmctld did not describe node %s; export MASTER_ADDR or launch "
		        "with --mpi=pmix",
		        node);
	if (netlocal_resolve(info->node_addr, &addr) != 0)
		return dist_err_set(err,
		                    "NodeAddr '%s' of node %s does not resolve to an IPv4 "
		                    "address; export MASTER_ADDR or launch with --mpi=pmix",
		                    info->node_addr, node);
	dist_ipv4_format(addr, addr_out);
	return 0;
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
static int fill_node_table(struct dist_world *w, const uint32_t *counts,
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
	if (load_nodes(NULL, &msg, err))
		return -1;
	hl = slurm_hostlist_create(getenv("SLURM_STEP_NODELIST"));
	for (uint32_t i = 0; hl && i < w->nnodes; i++) {
		char *name = slurm_hostlist_shift(hl);
		int bad = !name || address_of(msg, name, table[i].addr, err);

		free(name);
		if (bad)
			goto out;
		table[i].ntasks = counts[i];
		table[i].gpus = w->local_gpus;
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

/* First node of the step, where Slurm puts rank 0. */
static int first_node(char *name, size_t len, struct dist_err *err)
{
	dist_hostlist hl = slurm_hostlist_create(getenv("SLURM_STEP_NODELIST"));
	char *first = hl ? slurm_hostlist_shift(hl) : NULL;
	int rc = 0;

	if (!first || (size_t)snprintf(name, len, "%s", first) >= len)
		rc = dist_err_set(err, "cannot read the first node of SLURM_STEP_NODELIST '%s'",
		                  getenv("SLURM_STEP_NODELIST"));
	free(first);
	if (hl)
		slurm_hostlist_destroy(hl);
	return rc;
}

static int read_master_addr(const struct wireup_request *req, struct dist_world *w,
                            struct dist_err *err)
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
	if (first_node(node, sizeof(node), err) || load_nodes(node, &msg, err))
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
	w->master_port = dist_port_first(&req->ports, jobid, stepid);
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
	uint32_t *counts = NULL;
	int rc = -1;

	if (read_ranks(w, &counts, err) == 0 && netlocal_addrs(&local, err) == 0 &&
	    (!req->needs_nodes || fill_node_table(w, counts, &local, err) == 0) &&
	    read_master_addr(req, w, err) == 0 && read_master_port(req, w, err) == 0) {
		wireup_find_master_ifname(w, &local);
		rc = 0;
	}
	free(counts);
	return rc;
}
