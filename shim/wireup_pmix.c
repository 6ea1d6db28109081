/* PMIx wire-up: each node's first task puts a node record (the node's
 * addresses, or why the program cannot start there), rank 0 also the port it
 * found free; one collecting fence, bounded by the timeout; then every task
 * reads the same records and so reaches the same choice. */
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dist_slurmenv.h"
#include "msg.h"
#include "netlocal.h"
#include "wireup.h"

#define KEY_NODE "slurm-dist.node"
#define KEY_PORT "slurm-dist.port"
/* A node record is RECORD_OK "GPUS PORTS EXTRA ADDRESSES" (PORTS: one per
 * task of the node, comma-separated, or "-"; EXTRA: the mode's, or "-"), or
 * RECORD_FAILED and why. */
#define RECORD_OK     "ok "
#define RECORD_FAILED "failed "
#define RECORD_MAX    2048
/* See wireup_pmix_abort. */
#define ABORT_GRACE_S 2

static pmix_proc_t me;
static bool initialized;

bool wireup_pmix_available(void)
{
	return getenv("PMIX_NAMESPACE") != NULL;
}

static int pmix_fail(struct dist_err *err, const char *what, pmix_status_t rc)
{
	return dist_err_set(err, "PMIx %s failed: %s", what, PMIx_Error_string(rc));
}

static int value_to_u32(const pmix_value_t *v, uint32_t *out)
{
	switch (v->type) {
	case PMIX_UINT32:
		*out = v->data.uint32;
		return 0;
	case PMIX_UINT16:
		*out = v->data.uint16;
		return 0;
	case PMIX_UINT8:
		*out = v->data.uint8;
		return 0;
	case PMIX_INT:
		*out = (uint32_t)v->data.integer;
		return v->data.integer < 0 ? -1 : 0;
	case PMIX_UINT64:
		*out = (uint32_t)v->data.uint64;
		return v->data.uint64 > UINT32_MAX ? -1 : 0;
	default:
		return -1;
	}
}

static int get_u32(pmix_rank_t rank, const char *key, uint32_t *out, struct dist_err *err)
{
	pmix_proc_t proc;
	pmix_value_t *val = NULL;
	pmix_status_t rc;
	int bad;

	PMIX_LOAD_PROCID(&proc, me.nspace, rank);
	rc = PMIx_Get(&proc, key, NULL, 0, &val);
	if (rc != PMIX_SUCCESS)
		return dist_err_set(err, "PMIx has no %s: %s", key, PMIx_Error_string(rc));
	bad = value_to_u32(val, out);
	PMIX_VALUE_RELEASE(val);
	if (bad)
		return dist_err_set(err, "PMIx gave %s in an unexpected type", key);
	return 0;
}

/* Gets a string another task put before the fence. */
static int get_string(pmix_rank_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                      struct dist_err *err)
{
	pmix_proc_t proc;
	pmix_value_t *val = NULL;
	pmix_info_t info;
	int timeout = (int)timeout_s;
	pmix_status_t rc;
	int bad;

	PMIX_LOAD_PROCID(&proc, me.nspace, rank);
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
	rc = PMIx_Get(&proc, key, &info, 1, &val);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != PMIX_SUCCESS)
		return dist_err_set(err, "rank %u did not publish %s: %s", rank, key,
		                    PMIx_Error_string(rc));
	bad = val->type != PMIX_STRING || !val->data.string ||
	      (size_t)snprintf(buf, len, "%s", val->data.string) >= len;
	PMIX_VALUE_RELEASE(val);
	if (bad)
		return dist_err_set(err, "rank %u published a malformed %s", rank, key);
	return 0;
}

static int put_string(const char *key, const char *value, struct dist_err *err)
{
	pmix_value_t val;
	pmix_status_t rc;

	PMIX_VALUE_LOAD(&val, value, PMIX_STRING);
	rc = PMIx_Put(PMIX_GLOBAL, key, &val);
	PMIX_VALUE_DESTRUCT(&val);
	return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, "Put", rc);
}

/* Slurm's PMIx server ignores a client's PMIX_TIMEOUT on a fence, so the
 * wait is bounded here: non-blocking fence, timed wait for its callback.
 * Static because the callback may still come after we gave up. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	bool done;
	pmix_status_t status;
} fence_state = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_SUCCESS};

static void on_fence_done(pmix_status_t status, void *cbdata)
{
	(void)cbdata;
	pthread_mutex_lock(&fence_state.lock);
	fence_state.status = status;
	fence_state.done = true;
	pthread_cond_signal(&fence_state.done_cond);
	pthread_mutex_unlock(&fence_state.lock);
}

/* Waits for on_fence_done until TIMEOUT_S have passed; true if it came. */
static bool wait_for_fence(unsigned timeout_s, pmix_status_t *status)
{
	struct timespec deadline;
	bool done;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_s;
	pthread_mutex_lock(&fence_state.lock);
	while (!fence_state.done &&
	       pthread_cond_timedwait(&fence_state.done_cond, &fence_state.lock, &deadline) == 0)
		;
	done = fence_state.done;
	*status = fence_state.status;
	pthread_mutex_unlock(&fence_state.lock);
	return done;
}

static int fence(unsigned timeout_s, struct dist_err *err)
{
	pmix_info_t info;
	bool collect = true;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	rc = PMIx_Fence_nb(NULL, 0, &info, 1, on_fence_done, NULL);
	PMIX_INFO_DESTRUCT(&info);
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return 0;
	if (rc != PMIX_SUCCESS)
		return pmix_fail(err, "Fence", rc);
	if (!wait_for_fence(timeout_s, &rc))
		return dist_err_set(
		        err,
		        "timed out after %u s waiting for the step's other tasks; one of "
		        "them failed or never started (see their errors)",
		        timeout_s);
	return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, "Fence", rc);
}

static int read_ranks(struct dist_world *w, struct dist_err *err)
{
	if (get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &w->size, err) ||
	    get_u32(me.rank, PMIX_LOCAL_RANK, &w->local_rank, err) ||
	    get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &w->local_size, err) ||
	    get_u32(me.rank, PMIX_NODEID, &w->node_rank, err) ||
	    get_u32(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, &w->nnodes, err))
		return -1;
	w->rank = me.rank;
	w->local_gpus = wireup_local_gpus();
	msg_set_rank(w->rank); /* errors from here on name the rank */
	return 0;
}

/* Rank 0 finds the port: one more thing that can fail before anyone starts. */
static int put_port(const struct wireup_request *req, struct dist_err *err)
{
	uint32_t jobid, stepid;
	uint16_t port;
	char text[16];

	wireup_step_ids(&jobid, &stepid);
	if (wireup_pick_port(req, jobid, stepid, &port, err))
		return -1;
	snprintf(text, sizeof(text), "%u", port);
	return put_string(KEY_PORT, text, err);
}

/* Ports for this node's tasks, when the mode gives every task its own:
 * distinct, free now, from a start apart from the master port's. */
static int pick_task_ports(const struct wireup_request *req, uint32_t n, char *text, size_t len,
                           struct dist_err *err)
{
	uint32_t jobid, stepid;
	uint16_t next, port;
	size_t used = 0;

	wireup_step_ids(&jobid, &stepid);
	next = dist_port_first(&req->ports, jobid, stepid + 0x8000);
	for (uint32_t i = 0; i < n; i++) {
		if (dist_port_pick(&req->ports, next, netlocal_port_free, NULL, &port, err))
			return -1;
		used += (size_t)snprintf(text + used, len - used, "%s%u", i ? "," : "", port);
		if (used >= len)
			return dist_err_set(err, "too many tasks on this node for the node record");
		next = port < req->ports.hi ? port + 1 : req->ports.lo;
	}
	return 0;
}

/* The first task of each node speaks for it (see RECORD_OK), or says why
 * the program cannot start there: every task of a node runs the same
 * program with the same environment, so its check stands for all. */
static void put_node_record(const struct wireup_request *req, const struct dist_world *w,
                            const struct dist_addr_list *local, struct dist_err *failure)
{
	char text[RECORD_MAX], ports[RECORD_MAX / 4] = "-", extra[RECORD_MAX / 4] = "-";
	char host[64] = "?";
	struct dist_err ignored;
	int n;

	if (!failure->msg[0] && req->needs_tasks)
		pick_task_ports(req, w->local_size, ports, sizeof(ports), failure);
	if (!failure->msg[0] && req->node_extra)
		req->node_extra(w, extra, sizeof(extra), failure);
	if (failure->msg[0]) {
		gethostname(host, sizeof(host) - 1);
		snprintf(text, sizeof(text), RECORD_FAILED "rank %u on %s: %s", w->rank, host,
		         failure->msg);
	} else {
		n = snprintf(text, sizeof(text), RECORD_OK "%u %s %s ", w->local_gpus, ports,
		             extra[0] ? extra : "-");
		if (n < 0 || (size_t)n >= sizeof(text) ||
		    dist_addr_list_format(local, text + n, sizeof(text) - (size_t)n, &ignored))
			text[n] = '\0'; /* too many addresses: let others pick none of ours */
	}
	put_string(KEY_NODE, text, &ignored);
}

static int read_port(const struct wireup_request *req, struct dist_world *w, struct dist_err *err)
{
	char text[16];
	uint32_t port;

	if (wireup_user_port(req, &w->master_port, err))
		return -1;
	if (w->master_port)
		return 0;
	if (get_string(0, KEY_PORT, req->timeout_s, text, sizeof(text), err))
		return -1;
	if (dist_parse_u32(text, &port) || port == 0 || port > 65535)
		return dist_err_set(err, "rank 0 published a malformed port '%s'", text);
	w->master_port = (uint16_t)port;
	return 0;
}

/* One node of the step as PMIx describes it. */
struct pmix_node {
	pmix_rank_t leader; /* its lowest rank, the one that put its record */
	uint32_t ntasks;
	pmix_rank_t *ranks; /* its ranks, ascending (malloc'd) */
};

static int compare_ranks(const void *a, const void *b)
{
	pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;

	return x < y ? -1 : x > y;
}

static int compare_leaders(const void *a, const void *b)
{
	pmix_rank_t x = ((const struct pmix_node *)a)->leader,
	            y = ((const struct pmix_node *)b)->leader;

	return x < y ? -1 : x > y;
}

static int describe_node(const char *name, struct pmix_node *node, struct dist_err *err)
{
	pmix_proc_t *procs = NULL;
	size_t n = 0;
	pmix_status_t rc = PMIx_Resolve_peers(name, me.nspace, &procs, &n);

	if (rc != PMIX_SUCCESS || n == 0)
		return dist_err_set(err, "PMIx cannot list the tasks on node %s: %s", name,
		                    PMIx_Error_string(rc));
	node->ranks = calloc(n, sizeof(*node->ranks));
	if (!node->ranks) {
		PMIX_PROC_FREE(procs, n);
		return dist_err_set(err, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		node->ranks[i] = procs[i].rank;
	qsort(node->ranks, n, sizeof(*node->ranks), compare_ranks);
	node->leader = node->ranks[0];
	node->ntasks = (uint32_t)n;
	PMIX_PROC_FREE(procs, n);
	return 0;
}

/* The step's nodes ordered by their first rank: rank 0's node first. */
static int list_nodes(struct pmix_node *nodes, uint32_t max, uint32_t *count, struct dist_err *err)
{
	char *names = NULL, *save = NULL;
	int rc = 0;

	*count = 0;
	if (PMIx_Resolve_nodes(me.nspace, &names) != PMIX_SUCCESS || !names)
		return dist_err_set(err, "PMIx cannot list the step's nodes");
	for (char *name = strtok_r(names, ",", &save); name && rc == 0;
	     name = strtok_r(NULL, ",", &save)) {
		if (*count == max)
			rc = dist_err_set(err, "PMIx lists more nodes than the %u of the step",
			                  max);
		else
			rc = describe_node(name, &nodes[(*count)++], err);
	}
	free(names);
	if (rc == 0)
		qsort(nodes, *count, sizeof(*nodes), compare_leaders);
	if (rc == 0 && (*count == 0 || nodes[0].leader != 0))
		rc = dist_err_set(err, "PMIx does not list rank 0's node");
	return rc;
}

/* Cuts the next space-separated field off *P. */
static char *next_field(char **p)
{
	char *field = *p, *space = strchr(*p, ' ');

	if (!space)
		return NULL;
	*space = '\0';
	*p = space + 1;
	return field;
}

/* Parses BODY, an "ok" record without its prefix: "GPUS PORTS EXTRA ADDRESSES". */
static int parse_ok_record(char *body, uint32_t *gpus, char **ports, char **extra,
                           struct dist_addr_list *addrs, struct dist_err *err)
{
	char *p = body, *gpu_text = next_field(&p), *port_text = next_field(&p);
	char *extra_text = next_field(&p);

	if (!gpu_text || !port_text || !extra_text || dist_parse_u32(gpu_text, gpus))
		return -1;
	*ports = strdup(port_text);
	*extra = strdup(extra_text);
	if (!*ports || !*extra)
		return -1;
	return dist_addr_list_parse(p, addrs, err);
}

/* Reads one node's record; a failed node ends the reading. */
static enum wireup_result read_node_record(const struct wireup_request *req, pmix_rank_t leader,
                                           struct dist_addr_list *addrs, uint32_t *gpus,
                                           char **ports, char **extra, struct dist_err *err)
{
	char text[RECORD_MAX];

	if (get_string(leader, KEY_NODE, req->timeout_s, text, sizeof(text), err))
		return WIREUP_FAILED;
	if (strncmp(text, RECORD_FAILED, strlen(RECORD_FAILED)) == 0) {
		dist_err_set(err, "not starting: %s", text + strlen(RECORD_FAILED));
		return WIREUP_PEER_FAILED;
	}
	if (strncmp(text, RECORD_OK, strlen(RECORD_OK)) != 0 ||
	    parse_ok_record(text + strlen(RECORD_OK), gpus, ports, extra, addrs, err)) {
		dist_err_set(err, "rank %u published a malformed node record", leader);
		return WIREUP_FAILED;
	}
	return WIREUP_OK;
}

/* Every node's record, in node order. */
struct records {
	struct pmix_node *nodes;
	struct dist_addr_list *addrs;
	uint32_t *gpus;
	char **ports;  /* each node's PORTS field (malloc'd) */
	char **extras; /* each node's EXTRA field (malloc'd) */
	uint32_t count;
};

static enum wireup_result read_records(const struct wireup_request *req, const struct dist_world *w,
                                       struct records *r, struct dist_err *err)
{
	enum wireup_result result = WIREUP_OK;

	if (list_nodes(r->nodes, w->nnodes, &r->count, err))
		return WIREUP_FAILED;
	for (uint32_t i = 0; i < r->count && result == WIREUP_OK; i++)
		result = read_node_record(req, r->nodes[i].leader, &r->addrs[i], &r->gpus[i],
		                          &r->ports[i], &r->extras[i], err);
	return result;
}

/* Every node's ranks, node after node, and what its first task reported
 * for the mode; the world keeps pointing at them after the records go. */
static int fill_node_ranks(const struct records *r, struct dist_world *w, struct dist_err *err)
{
	static uint32_t *ranks;
	static char **extras;
	static uint32_t nextras;
	uint32_t used = 0;

	free(ranks);
	for (uint32_t i = 0; extras && i < nextras; i++)
		free(extras[i]);
	free(extras);
	ranks = calloc(w->size ? w->size : 1, sizeof(*ranks));
	extras = calloc(r->count ? r->count : 1, sizeof(*extras));
	nextras = r->count;
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
static int fill_node_table(const struct records *r, struct dist_world *w, struct dist_err *err)
{
	static struct dist_node *table;
	struct dist_ifaddr chosen;

	free(table);
	table = calloc(r->count, sizeof(*table));
	if (!table)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < r->count; i++) {
		if (dist_choose_node_addr(r->addrs, r->count, i, &chosen, err))
			return -1;
		dist_ipv4_format(chosen.addr, table[i].addr);
		table[i].prefix = chosen.prefix;
		table[i].ntasks = r->nodes[i].ntasks;
		table[i].gpus = r->gpus[i];
	}
	w->nodes = table;
	return fill_node_ranks(r, w, err);
}

/* The task table: every task's node address and the port its node's first
 * task picked for it (the Nth port for the node's Nth rank). */
static int fill_task_table(const struct records *r, struct dist_world *w, struct dist_err *err)
{
	static struct dist_task *table;

	free(table);
	table = calloc(w->size, sizeof(*table));
	if (!table)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < r->count; i++) {
		const char *p = r->ports[i];

		for (uint32_t j = 0; j < r->nodes[i].ntasks; j++) {
			uint32_t rank = r->nodes[i].ranks[j], port;
			char *end;

			if (rank >= w->size || dist_parse_u32_prefix(p, &port, &end) ||
			    port > 65535)
				return dist_err_set(err, "rank %u published no port for rank %u",
				                    r->nodes[i].leader, rank);
			snprintf(table[rank].addr, sizeof(table[rank].addr), "%s",
			         w->nodes[i].addr);
			table[rank].port = (uint16_t)port;
			p = *end == ',' ? end + 1 : end;
		}
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
static enum wireup_result read_exchange(const struct wireup_request *req, struct dist_world *w,
                                        struct dist_err *err)
{
	struct records r;
	struct dist_ifaddr chosen;
	enum wireup_result result = WIREUP_FAILED;

	if (alloc_records(&r, w->nnodes)) {
		dist_err_set(err, "out of memory");
	} else {
		result = read_records(req, w, &r, err);
		if (result == WIREUP_OK && read_port(req, w, err))
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
		    fill_node_table(&r, w, err))
			result = WIREUP_FAILED;
		if (result == WIREUP_OK && req->needs_tasks && fill_task_table(&r, w, err))
			result = WIREUP_FAILED;
	}
	free_records(&r, w->nnodes);
	return result;
}

/* This task's reason not to start, if it finds one before the fence. */
static void prepare_contribution(const struct wireup_request *req, const struct dist_world *w,
                                 struct dist_addr_list *local, struct dist_err *mine)
{
	if (mine->msg[0] == '\0' && w->rank == 0 && !req->user_master_port)
		put_port(req, mine);
	if (mine->msg[0] == '\0')
		netlocal_addrs(local, mine);
	if (w->local_rank == 0)
		put_node_record(req, w, local, mine);
}

enum wireup_result wireup_pmix(const struct wireup_request *req, const char *local_failure,
                               struct dist_world *w, struct dist_err *err)
{
	struct dist_addr_list local = {.count = 0};
	struct dist_err mine = {{0}};
	enum wireup_result result;
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	if (rc != PMIX_SUCCESS) {
		pmix_fail(err, "Init", rc);
		return WIREUP_FAILED;
	}
	initialized = true;
	if (read_ranks(w, err))
		return WIREUP_FAILED;
	if (local_failure)
		snprintf(mine.msg, sizeof(mine.msg), "%s", local_failure);
	prepare_contribution(req, w, &local, &mine);
	rc = PMIx_Commit();
	if (rc != PMIX_SUCCESS) {
		pmix_fail(err, "Commit", rc);
		return WIREUP_FAILED;
	}
	if (fence(req->timeout_s, err))
		return WIREUP_TIMED_OUT;
	if (mine.msg[0]) {
		*err = mine;
		/* Only a node's first task tells the others; anyone else must abort. */
		return w->local_rank == 0 ? WIREUP_FAILED : WIREUP_FAILED_UNSHARED;
	}
	result = read_exchange(req, w, err);
	if (result == WIREUP_OK)
		wireup_find_master_ifname(w, &local);
	return result;
}

void wireup_pmix_abort(const char *why)
{
	if (!initialized && wireup_pmix_available()) {
		/* A task that never joined PMIx (its program was to) joins only
		 * to end the step. An abort that reaches srun while it is still
		 * launching the step ends the launch before this task's stderr
		 * is forwarded: a moment's grace lets the launch finish first. */
		sleep(ABORT_GRACE_S);
		initialized = PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS;
	}
	if (initialized)
		PMIx_Abort(1, why, NULL, 0);
}

void wireup_pmix_finalize(void)
{
	if (initialized)
		PMIx_Finalize(NULL, 0);
	initialized = false;
}
