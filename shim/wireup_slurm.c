/* Wire-up without PMIx (a site whose MpiDefault is none): everything comes
 * from the variables Slurm sets in every task. With no exchange, every task
 * computes the same port from the job and step ids, and the master address
 * is the address Slurm itself uses for rank 0's node (its NodeAddr). */
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_slurmenv.h"
#include "msg.h"
#include "netlocal.h"
#include "wireup.h"

#define NODES_MAX 65536

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

static int read_local_size(struct dist_world *w, struct dist_err *err)
{
	const char *text = getenv("SLURM_STEP_TASKS_PER_NODE");
	uint32_t *counts;
	size_t n;
	int rc = -1;

	if (!text)
		return dist_err_set(err,
		                    "SLURM_STEP_TASKS_PER_NODE is not set; is this a Slurm step?");
	counts = calloc(NODES_MAX, sizeof(*counts));
	if (!counts)
		return dist_err_set(err, "out of memory");
	if (dist_tasks_per_node_parse(text, counts, NODES_MAX, &n, err) == 0) {
		if (w->node_rank < n && n == w->nnodes) {
			w->local_size = counts[w->node_rank];
			rc = 0;
		} else {
			dist_err_set(err, "SLURM_STEP_TASKS_PER_NODE '%s' does not match %u nodes",
			             text, w->nnodes);
		}
	}
	free(counts);
	return rc;
}

static int read_ranks(struct dist_world *w, struct dist_err *err)
{
	if (env_u32("SLURM_PROCID", &w->rank, err) || env_u32("SLURM_NTASKS", &w->size, err) ||
	    env_u32("SLURM_LOCALID", &w->local_rank, err) ||
	    env_u32("SLURM_NODEID", &w->node_rank, err) ||
	    env_u32("SLURM_STEP_NUM_NODES", &w->nnodes, err) || read_local_size(w, err))
		return -1;
	if (w->rank >= w->size || w->node_rank >= w->nnodes || w->local_rank >= w->local_size)
		return dist_err_set(err,
		                    "inconsistent Slurm task variables (rank %u of %u, local %u "
		                    "of %u, node %u of %u)",
		                    w->rank, w->size, w->local_rank, w->local_size, w->node_rank,
		                    w->nnodes);
	msg_set_rank(w->rank); /* errors from here on name the rank */
	return 0;
}

/* First node of the step, where Slurm puts rank 0. */
static int first_node(char *name, size_t len, struct dist_err *err)
{
	hostlist_t hl = slurm_hostlist_create(getenv("SLURM_STEP_NODELIST"));
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

/* Asks slurmctld for NODE's NodeAddr and makes it an IPv4 address. */
static int node_address(const char *node, char *addr_out, struct dist_err *err)
{
	node_info_msg_t *msg = NULL;
	uint32_t addr;
	int rc;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) != SLURM_SUCCESS || !msg ||
	    msg->record_count < 1 || !msg->node_array[0].node_addr) {
		rc = dist_err_set(err,
		                  "cannot ask slurmctld for the address of node %s (%s); export "
		                  "MASTER_ADDR or launch with --mpi=pmix",
		                  node, slurm_strerror(slurm_get_errno()));
	} else if (netlocal_resolve(msg->node_array[0].node_addr, &addr) != 0) {
		rc = dist_err_set(err,
		                  "NodeAddr '%s' of node %s does not resolve to an IPv4 "
		                  "address; export MASTER_ADDR or launch with --mpi=pmix",
		                  msg->node_array[0].node_addr, node);
	} else {
		dist_ipv4_format(addr, addr_out);
		rc = 0;
	}
	if (msg)
		slurm_free_node_info_msg(msg);
	return rc;
}

static int read_master_addr(const struct wireup_request *req, struct dist_world *w,
                            struct dist_err *err)
{
	char node[256];

	if (req->user_master_addr) {
		snprintf(w->master_addr, sizeof(w->master_addr), "%s", req->user_master_addr);
		return 0;
	}
	return first_node(node, sizeof(node), err) || node_address(node, w->master_addr, err);
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

	if (read_ranks(w, err) || read_master_addr(req, w, err) || read_master_port(req, w, err) ||
	    netlocal_addrs(&local, err))
		return -1;
	wireup_find_master_ifname(w, &local);
	return 0;
}
