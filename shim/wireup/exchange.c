/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one exchange, whatever PMI carries it: each node's first task puts a
 * node record (the node's addresses, or why the program cannot start
 * there), rank 0 also the port it found free; one collecting fence, bounded
 * by the timeout; then every task reads the same records and so reaches the
 * same choice. The transports (wireup/transport.h) only move strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/module.h"
#include "base/msg.h"
#include "dist_record.h"
#include "dist_slurmenv.h"
#include "node/netlocal.h"
#include "node/stepdir.h"
#include "node/stepids.h"
#include "relay/relay.h"
#include "wireup/check.h"
#include "wireup/exchange.h"
#include "wireup/shared.h"
#include "wireup/transport.h"
#include "wireup/wireup.h"

#define KEY_NODE  "slurm-dist.node"
#define KEY_PORT  "slurm-dist.port"
#define KEY_RELAY "slurm-dist.relay"
/* What a node's first task read of the exchange, for the node's others. */
#define SHARED_EXCHANGE "exchange"
/* The node record: core/dist_record.h. */
#define RECORD_MAX DIST_RECORD_MAX

/* The transport this task wired up through, for wireup_abort/finalize. */
static const struct wireup_transport *used;

/* One task's exchange (wireup/exchange.h). */
struct exchange {
	const struct wireup_transport *t; /* the step's PMI */
	const struct wireup_request *req;
	/* The node record being formatted or parsed, one at a time (some 7 KiB). */
	struct dist_node_record rec;
	/* --check net's listeners, from before the fence until every node has
	 * tried its paths. */
	struct check_listeners check;
	/* What the world points into after a successful reading, until
	 * exchange_free: the node table, the task table, every node's ranks
	 * and what each node's first task reported for the mode (NEXTRAS). */
	struct dist_node *nodes;
	struct dist_task *tasks;
	uint32_t *ranks_by_node;
	char **extras;
	uint32_t nextras;
};

enum wireup_pmi wireup_pmi_of_step(void)
{
	if (getenv("PMIX_NAMESPACE"))
		return WIREUP_PMI_PMIX;
	if (getenv("PMI_FD") && getenv("PMI_RANK"))
		return WIREUP_PMI_PMI2;
	return WIREUP_PMI_NONE;
}

const char *wireup_pmi_name(enum wireup_pmi pmi)
{
	return pmi == WIREUP_PMI_PMIX ? "PMIx" : pmi == WIREUP_PMI_PMI2 ? "PMI2" : "no PMI";
}

/* PMI's transport, from its module; NULL (ERR) when it cannot be loaded. */
static const struct wireup_transport *load_transport(enum wireup_pmi pmi, struct dist_err *err)
{
	const struct transport_module *m;

	if (pmi == WIREUP_PMI_NONE)
		return NULL;
	m = pmi == WIREUP_PMI_PMIX ? module_pmix(err) : module_pmi2(err);
	return m ? m->transport : NULL;
}

/* What a transport may call back into (wireup/transport.h). */
static const struct wireup_host host = {.slurm_node_of = wireup_slurm_node_of};

/* Rank 0 finds the port: one more thing that can fail before anyone starts. */
static int put_port(const struct wireup_transport *t, const struct wireup_request *req,
                    uint16_t *picked, struct dist_err *err)
{
	uint32_t jobid, stepid;
	uint16_t port;
	char text[16];

	(void)stepids_read(&jobid, &stepid, NULL);
	if (wireup_pick_port(req, jobid, stepid, &port, err))
		return -1;
	*picked = port;
	snprintf(text, sizeof(text), "%u", port);
	return t->put(KEY_PORT, text, err);
}

/* Rank 0, launcher form: the relay's port (never MASTER, the master
 * port), held from now on, and its key, which only the step's tasks read. */
static int put_relay(const struct wireup_transport *t, const struct wireup_request *req,
                     uint16_t master, struct dist_err *err)
{
	uint32_t jobid, stepid;
	char text[RELAY_PARAMS_TEXT];

	(void)stepids_read(&jobid, &stepid, NULL);
	if (relay_listen_any(&req->ports,
	                     dist_port_first_for(DIST_PORT_RELAY, &req->ports, jobid, stepid, 0),
	                     master, req->relay, err))
		return -1;
	relay_params_format(req->relay, text);
	return t->put(KEY_RELAY, text, err);
}

static int read_relay(const struct wireup_transport *t, const struct wireup_request *req,
                      const struct dist_world *w, struct dist_err *err)
{
	char text[RELAY_PARAMS_TEXT + 8];

	if (!req->relay || w->rank == 0)
		return 0;
	if (t->get(0, KEY_RELAY, req->timeout_s, text, sizeof(text), err))
		return -1;
	return relay_params_parse(text, req->relay, err);
}

/* Ports for this node's tasks, when the mode gives every task its own:
 * distinct, free now, from a start apart from the master port's. */
static int pick_task_ports(const struct wireup_request *req, uint32_t n, char *text, size_t len,
                           struct dist_err *err)
{
	uint32_t jobid, stepid;
	uint16_t next, port;
	size_t used_len = 0;

	(void)stepids_read(&jobid, &stepid, NULL);
	next = dist_port_first_for(DIST_PORT_TASK, &req->ports, jobid, stepid, 0);
	for (uint32_t i = 0; i < n; i++) {
		if (dist_port_pick(&req->ports, next, netlocal_port_free, NULL, &port, err))
			return -1;
		used_len += (size_t)snprintf(text + used_len, len - used_len, "%s%u", i ? "," : "",
		                             port);
		if (used_len >= len)
			return dist_err_set(err, "too many tasks on this node for the node record");
		next = port < req->ports.hi ? port + 1 : req->ports.lo;
	}
	return 0;
}

/* The "ok" record of this node in TEXT (LIMIT bytes at most); addresses
 * that do not fit are left out, so that others pick none of ours. */
static int format_ok_record(struct exchange *ex, const struct dist_world *w, const char *ports,
                            const char *extra, const struct dist_addr_list *local, char *text,
                            size_t limit, struct dist_err *err)
{
	struct dist_node_record *rec = &ex->rec;

	memset(rec, 0, sizeof(*rec));
	rec->gpus = w->local_gpus;
	snprintf(rec->ports, sizeof(rec->ports), "%s", ports);
	snprintf(rec->extra, sizeof(rec->extra), "%s", extra[0] ? extra : "-");
	rec->addrs = *local;
	return dist_node_record_format(rec, text, limit, err);
}

/* The first task of each node speaks for it (core/dist_record.h), or says why
 * the program cannot start there: every task of a node runs the same
 * program with the same environment, so its check stands for all. RC is
 * nonzero when the task already failed (FAILURE says why); returns -1 when
 * it has failed by the end (FAILURE), 0 when the record says "ok". */
static int put_node_record(struct exchange *ex, const struct dist_world *w,
                           const struct dist_addr_list *local, int rc, struct dist_err *failure)
{
	const struct wireup_transport *t = ex->t;
	const struct wireup_request *req = ex->req;
	char text[RECORD_MAX], ports[RECORD_MAX / 4] = "-", extra[RECORD_MAX / 4] = "-";
	size_t limit = t->max_value < sizeof(text) ? t->max_value : sizeof(text);
	char host[64] = "?";
	struct dist_err ignored;

	if (rc == 0 && req->needs_tasks)
		rc = pick_task_ports(req, w->local_size, ports, sizeof(ports), failure);
	if (rc == 0 && req->node_extra)
		rc = req->node_extra(w, extra, sizeof(extra), failure);
	if (rc == 0)
		rc = format_ok_record(ex, w, ports, extra, local, text, limit, failure);
	if (rc != 0) {
		gethostname(host, sizeof(host) - 1);
		snprintf(text, limit, DIST_RECORD_FAILED "rank %u on %s: %s", w->rank, host,
		         failure->msg);
	}
	t->put(KEY_NODE, text, &ignored);
	return rc ? -1 : 0;
}

static int read_port(const struct wireup_transport *t, const struct wireup_request *req,
                     struct dist_world *w, struct dist_err *err)
{
	char text[16];
	uint32_t port;

	if (wireup_user_port(req, &w->master_port, err))
		return -1;
	if (w->master_port)
		return 0;
	if (t->get(0, KEY_PORT, req->timeout_s, text, sizeof(text), err))
		return -1;
	if (dist_parse_u32(text, &port) || port == 0 || port > 65535)
		return dist_err_set(err, "rank 0 published a malformed port '%s'", text);
	w->master_port = (uint16_t)port;
	return 0;
}

static int compare_leaders(const void *a, const void *b)
{
	uint32_t x = ((const struct wireup_node *)a)->ranks[0],
	         y = ((const struct wireup_node *)b)->ranks[0];

	return x < y ? -1 : x > y;
}

/* The step's nodes ordered by their first rank, the one that put its
 * record: rank 0's node first. */
static int list_nodes(const struct wireup_transport *t, const struct dist_world *w,
                      struct wireup_node *nodes, uint32_t *count, struct dist_err *err)
{
	if (t->layout(w, nodes, w->nnodes, count, err))
		return -1;
	for (uint32_t i = 0; i < *count; i++) {
		if (nodes[i].ntasks == 0 || !nodes[i].ranks)
			return dist_err_set(err, "%s lists a node without tasks", t->name);
		nodes[i].slurm_index = i;
	}
	qsort(nodes, *count, sizeof(*nodes), compare_leaders);
	if (*count == 0 || nodes[0].ranks[0] != 0)
		return dist_err_set(err, "%s does not list rank 0's node", t->name);
	return 0;
}

/* Reads one node's record; a failed node ends the reading. */
static enum wireup_result read_node_record(struct exchange *ex, const struct wireup_transport *t,
                                           uint32_t leader, struct dist_addr_list *addrs,
                                           uint32_t *gpus, char **ports, char **extra,
                                           struct dist_err *err)
{
	struct dist_node_record *rec = &ex->rec;
	char text[RECORD_MAX];
	struct dist_err why;

	if (t->get(leader, KEY_NODE, ex->req->timeout_s, text, sizeof(text), err))
		return WIREUP_FAILED;
	if (dist_node_record_parse(text, rec, &why)) {
		dist_err_set(err, "rank %u published a malformed node record (%s)", leader,
		             why.msg);
		return WIREUP_FAILED;
	}
	if (rec->failed) {
		dist_err_set(err, "not starting: %s", rec->why);
		return WIREUP_PEER_FAILED;
	}
	*gpus = rec->gpus;
	*addrs = rec->addrs;
	*ports = strdup(rec->ports);
	*extra = strdup(rec->extra);
	if (!*ports || !*extra) {
		dist_err_set(err, "out of memory");
		return WIREUP_FAILED;
	}
	return WIREUP_OK;
}

/* Every node's record, in node order. */
struct records {
	struct wireup_node *nodes;
	struct dist_addr_list *addrs;
	uint32_t *gpus;
	char **ports;  /* each node's PORTS field (malloc'd) */
	char **extras; /* each node's EXTRA field (malloc'd) */
	uint32_t count;
};

/* This task's node in the step's order (list_nodes): node ranks, node
 * tables and the master then agree, wherever rank 0 runs. PMIx's node id and
 * PMI2's mapping number the nodes in Slurm's order, which puts rank 0's node
 * first only when it is the first node Slurm lists. */
static int renumber_node(const struct records *r, struct dist_world *w, struct dist_err *err)
{
	for (uint32_t i = 0; i < r->count; i++)
		for (uint32_t j = 0; j < r->nodes[i].ntasks; j++)
			if (r->nodes[i].ranks[j] == w->rank) {
				w->node_rank = i;
				return 0;
			}
	return dist_err_set(err, "the step's layout does not list rank %u", w->rank);
}

static enum wireup_result read_records(struct exchange *ex, const struct wireup_transport *t,
                                       struct dist_world *w, struct records *r,
                                       struct dist_err *err)
{
	enum wireup_result result = WIREUP_OK;

	if (list_nodes(t, w, r->nodes, &r->count, err) || renumber_node(r, w, err))
		return WIREUP_FAILED;
	for (uint32_t i = 0; i < r->count && result == WIREUP_OK; i++)
		result = read_node_record(ex, t, r->nodes[i].ranks[0], &r->addrs[i], &r->gpus[i],
		                          &r->ports[i], &r->extras[i], err);
	return result;
}

static void free_node_ranks(struct exchange *ex)
{
	for (uint32_t i = 0; ex->extras && i < ex->nextras; i++)
		free(ex->extras[i]);
	free(ex->extras);
	free(ex->ranks_by_node);
	ex->extras = NULL;
	ex->ranks_by_node = NULL;
	ex->nextras = 0;
}

/* Every node's ranks, node after node, and what its first task reported
 * for the mode; the world keeps pointing at them (in EX) after the records
 * go. */
static int fill_node_ranks(struct exchange *ex, const struct records *r, struct dist_world *w,
                           struct dist_err *err)
{
	uint32_t *ranks;
	char **extras;
	uint32_t used = 0;

	free_node_ranks(ex);
	ranks = ex->ranks_by_node = calloc(w->size ? w->size : 1, sizeof(*ranks));
	extras = ex->extras = calloc(r->count ? r->count : 1, sizeof(*extras));
	ex->nextras = r->count;
	if (!ranks || !extras)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < r->count; i++) {
		for (uint32_t j = 0; j < r->nodes[i].ntasks && used < w->size; j++)
			ranks[used++] = r->nodes[i].ranks[j];
		extras[i] = r->extras[i] ? strdup(r->extras[i]) : NULL;
	}
	w->ranks_by_node = ranks;
	w->node_extras = (const char *const *)extras;
	return 0;
}

/* The node table modes that describe every node (hostfiles...) need. */
static int fill_node_table(struct exchange *ex, const struct records *r, struct dist_world *w,
                           struct dist_err *err)
{
	struct dist_node *table;
	struct dist_ifaddr chosen;

	free(ex->nodes);
	table = ex->nodes = calloc(r->count, sizeof(*table));
	if (!table)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < r->count; i++) {
		if (dist_choose_node_addr(r->addrs, r->count, i, &chosen, err))
			return -1;
		dist_ipv4_format(chosen.addr, table[i].addr);
		table[i].prefix = chosen.prefix;
		table[i].ntasks = r->nodes[i].ntasks;
		table[i].gpus = r->gpus[i];
		table[i].slurm_index = r->nodes[i].slurm_index;
	}
	w->nodes = table;
	return fill_node_ranks(ex, r, w, err);
}

/* The task table: every task's node address and the port its node's first
 * task picked for it (the Nth port for the node's Nth rank). */
static int fill_task_table(struct exchange *ex, const struct records *r, struct dist_world *w,
                           struct dist_err *err)
{
	struct dist_task *table;

	free(ex->tasks);
	table = ex->tasks = calloc(w->size, sizeof(*table));
	if (!table)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < r->count; i++) {
		uint16_t *ports = calloc(r->nodes[i].ntasks, sizeof(*ports));

		if (!ports)
			return dist_err_set(err, "out of memory");
		if (dist_task_ports_parse(r->ports[i], r->nodes[i].ntasks, ports)) {
			free(ports);
			return dist_err_set(
			        err, "rank %u published no port for each of its node's %u tasks",
			        r->nodes[i].ranks[0], r->nodes[i].ntasks);
		}
		for (uint32_t j = 0; j < r->nodes[i].ntasks; j++) {
			uint32_t rank = r->nodes[i].ranks[j];

			if (rank >= w->size) {
				free(ports);
				return dist_err_set(err, "%u tasks but a rank %u", w->size, rank);
			}
			snprintf(table[rank].addr, sizeof(table[rank].addr), "%s",
			         w->nodes[i].addr);
			table[rank].port = ports[j];
		}
		free(ports);
	}
	w->tasks = table;
	return 0;
}

static int alloc_records(struct records *r, uint32_t nnodes)
{
	size_t n = nnodes ? nnodes : 1;

	r->count = 0;
	r->nodes = calloc(n, sizeof(*r->nodes));
	r->addrs = calloc(n, sizeof(*r->addrs));
	r->gpus = calloc(n, sizeof(*r->gpus));
	r->ports = calloc(n, sizeof(*r->ports));
	r->extras = calloc(n, sizeof(*r->extras));
	return r->nodes && r->addrs && r->gpus && r->ports && r->extras ? 0 : -1;
}

static void free_records(struct records *r, uint32_t nnodes)
{
	for (uint32_t i = 0; r->nodes && i < nnodes; i++)
		free(r->nodes[i].ranks);
	for (uint32_t i = 0; r->ports && i < nnodes; i++)
		free(r->ports[i]);
	for (uint32_t i = 0; r->extras && i < nnodes; i++)
		free(r->extras[i]);
	free(r->extras);
	free(r->nodes);
	free(r->addrs);
	free(r->gpus);
	free(r->ports);
}

/* Everything a task needs from the fence: did every node get ready, the
 * port, rank 0's address all nodes reach, and the node table if asked. */
static enum wireup_result read_exchange(struct exchange *ex, const struct wireup_transport *t,
                                        struct dist_world *w, struct dist_err *err)
{
	const struct wireup_request *req = ex->req;
	struct records r;
	struct dist_ifaddr chosen;
	enum wireup_result result = WIREUP_FAILED;

	if (alloc_records(&r, w->nnodes)) {
		dist_err_set(err, "out of memory");
	} else {
		result = read_records(ex, t, w, &r, err);
		if (result == WIREUP_OK && read_port(t, req, w, err))
			result = WIREUP_FAILED;
		if (result == WIREUP_OK && read_relay(t, req, w, err))
			result = WIREUP_FAILED;
		if (result == WIREUP_OK && req->user_master_addr)
			snprintf(w->master_addr, sizeof(w->master_addr), "%s",
			         req->user_master_addr);
		else if (result == WIREUP_OK &&
		         dist_choose_node_addr(r.addrs, r.count, 0, &chosen, err))
			result = WIREUP_FAILED;
		else if (result == WIREUP_OK)
			dist_ipv4_format(chosen.addr, w->master_addr);
		if (result == WIREUP_OK && (req->needs_nodes || req->needs_tasks) &&
		    fill_node_table(ex, &r, w, err))
			result = WIREUP_FAILED;
		if (result == WIREUP_OK && req->needs_tasks && fill_task_table(ex, &r, w, err))
			result = WIREUP_FAILED;
	}
	free_records(&r, w->nnodes);
	return result;
}

/* Whether this node's tasks read the exchange once between them: only
 * where there are others to read for, and a step directory to leave it in. */
static bool node_shares_reading(const struct wireup_request *req, const struct dist_world *w)
{
	return req->share && w->local_size > 1;
}

/* Whether this task reads the exchange for its node's other tasks. */
static bool reads_for_node(const struct wireup_request *req, const struct dist_world *w)
{
	return node_shares_reading(req, w) && w->local_rank == 0;
}

/* The node's first task leaves what it read (nothing, when it read
 * nothing) for the node's other tasks, which wait for it after the fence:
 * they then ask the transport only for what it lacks. */
static void leave_for_node(const struct wireup_request *req)
{
	char *text = wireup_shared_text();
	struct dist_err ignored;

	stepdir_write(req->share, SHARED_EXCHANGE, text ? text : "", &ignored);
	free(text);
}

/* The exchange read once for the node (wireup/shared.h): by its first
 * task, or, when it left nothing usable, by each task for itself. */
static enum wireup_result read_exchange_for_node(struct exchange *ex, struct dist_world *w,
                                                 struct dist_err *err)
{
	const struct wireup_transport *t = ex->t, *view = NULL;
	const struct wireup_request *req = ex->req;
	enum wireup_result result;
	struct dist_err ignored;
	char *text = NULL;

	if (!node_shares_reading(req, w))
		return read_exchange(ex, t, w, err);
	if (w->local_rank == 0) {
		result = read_exchange(ex, wireup_shared_record(t), w, err);
		leave_for_node(req);
	} else {
		if (stepdir_wait(req->share, SHARED_EXCHANGE, req->timeout_s, &ignored) == 0 &&
		    stepdir_read(req->share, SHARED_EXCHANGE, &text, &ignored) == 0)
			view = wireup_shared_replay(t, text, &ignored);
		free(text);
		result = read_exchange(ex, view ? view : t, w, err);
	}
	wireup_shared_clear();
	return result;
}

/* Whether this task's node's first task told everyone it cannot start
 * there: the other tasks then learn it from its record, and this task,
 * failing for the same node-wide reason, need not end the step for them
 * (ending it races with their reading why). */
static bool leader_reported_failure(const struct wireup_transport *t,
                                    const struct wireup_request *req, const struct dist_world *w)
{
	struct wireup_node *nodes = calloc(w->nnodes ? w->nnodes : 1, sizeof(*nodes));
	uint32_t count = 0, leader = UINT32_MAX;
	struct dist_err ignored;
	char text[RECORD_MAX];
	bool failed = false;

	if (nodes && list_nodes(t, w, nodes, &count, &ignored) == 0)
		for (uint32_t i = 0; i < count; i++)
			for (uint32_t j = 0; j < nodes[i].ntasks; j++)
				if (nodes[i].ranks[j] == w->rank)
					leader = nodes[i].ranks[0];
	if (leader != UINT32_MAX &&
	    t->get(leader, KEY_NODE, req->timeout_s, text, sizeof(text), &ignored) == 0)
		failed = strncmp(text, DIST_RECORD_FAILED, strlen(DIST_RECORD_FAILED)) == 0;
	for (uint32_t i = 0; nodes && i < count; i++)
		free(nodes[i].ranks);
	free(nodes);
	return failed;
}

/* This task's reason not to start, if it finds one before the fence: -1
 * (MINE says why), also when RC says it already had one. */
static int prepare_contribution(struct exchange *ex, const struct dist_world *w,
                                struct dist_addr_list *local, int rc, struct dist_err *mine)
{
	const struct wireup_transport *t = ex->t;
	const struct wireup_request *req = ex->req;
	uint16_t master = 0;

	if (rc == 0 && w->rank == 0 && !req->user_master_port)
		rc = put_port(t, req, &master, mine);
	else if (rc == 0 && w->rank == 0)
		rc = wireup_user_port(req, &master, mine);
	if (rc == 0 && w->rank == 0 && req->relay)
		rc = put_relay(t, req, master, mine);
	if (rc == 0)
		rc = wireup_check_listen(&ex->check, t, req, w, req->user_master_addr ? 0 : master,
		                         mine);
	if (rc == 0)
		rc = netlocal_addrs(local, mine);
	if (w->local_rank == 0)
		rc = put_node_record(ex, w, local, rc, mine);
	return rc ? -1 : 0;
}

struct exchange *exchange_create(const struct wireup_transport *t, const struct wireup_request *req)
{
	struct exchange *ex = calloc(1, sizeof(*ex));

	if (ex) {
		ex->t = t;
		ex->req = req;
	}
	return ex;
}

void exchange_free(struct exchange *ex)
{
	if (!ex)
		return;
	wireup_check_close(&ex->check);
	free_node_ranks(ex);
	free(ex->nodes);
	free(ex->tasks);
	free(ex);
}

enum wireup_result exchange_run(struct exchange *ex, const char *local_failure,
                                struct dist_world *w, struct dist_err *err)
{
	const struct wireup_transport *t = ex->t;
	const struct wireup_request *req = ex->req;
	struct dist_addr_list local = {.count = 0};
	struct dist_err mine = {{0}};
	enum wireup_result result;
	int failed = 0;

	if (t->init(&host, w, err))
		return WIREUP_FAILED;
	w->local_gpus = wireup_local_gpus();
	msg_set_rank(w->rank); /* errors from here on name the rank */
	if (local_failure)
		failed = dist_err_set(&mine, "%s", local_failure);
	/* Gone before this task joins the fence, so that no task of the node
	 * past the fence reads what an earlier exchange left. */
	if (reads_for_node(req, w))
		stepdir_remove(req->share, SHARED_EXCHANGE);
	failed = prepare_contribution(ex, w, &local, failed, &mine);
	if (t->commit(err))
		result = WIREUP_FAILED;
	else if (t->fence(req->timeout_s, err))
		result = WIREUP_TIMED_OUT;
	else if (failed) {
		*err = mine;
		if (reads_for_node(req, w))
			leave_for_node(req); /* read nothing: the others read for themselves */
		/* Only a node's first task tells the others; another task whose
		 * failure its record does not cover must end the step itself. */
		result = w->local_rank == 0 || leader_reported_failure(t, req, w)
		                 ? WIREUP_FAILED
		                 : WIREUP_FAILED_UNSHARED;
	} else
		result = read_exchange_for_node(ex, w, err);
	if (result == WIREUP_OK) {
		wireup_find_master_ifname(w, &local);
		result = wireup_check_run(&ex->check, t, req, w, &local, err);
	}
	wireup_check_close(&ex->check);
	return result;
}

/* The exchange this process ran, one a process: the world it filled points
 * into it up to the exec, so nothing frees it (wireup/exchange.h). */
static struct exchange *ran;

enum wireup_result wireup_exchange(enum wireup_pmi pmi, const struct wireup_request *req,
                                   const char *local_failure, struct dist_world *w,
                                   struct dist_err *err)
{
	const struct wireup_transport *t = load_transport(pmi, err);

	/* Without its module this task cannot join the fence: the others
	 * wait for it until their timeout. */
	if (!t)
		return WIREUP_FAILED;
	used = t;
	ran = exchange_create(t, req);
	if (!ran) {
		dist_err_set(err, "out of memory");
		return WIREUP_FAILED;
	}
	return exchange_run(ran, local_failure, w, err);
}

void wireup_abort(const char *why)
{
	struct dist_err ignored;
	const struct wireup_transport *t =
	        used ? used : load_transport(wireup_pmi_of_step(), &ignored);

	/* The abort kills the step's tasks at once, and slurmstepd may not
	 * have forwarded the line the caller just printed: seen losing it in
	 * about one run in six under PMI2 (pmi2_failures). A moment for it. */
	fflush(stderr);
	nanosleep(&(struct timespec){.tv_nsec = WIREUP_ABORT_MSG_GRACE_MS * 1000000L}, NULL);
	if (t)
		t->abort(why);
}

void wireup_finalize(void)
{
	if (used)
		used->finalize();
	used = NULL;
}
