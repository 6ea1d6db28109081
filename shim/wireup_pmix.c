/* PMIx wire-up: each node's first task puts its addresses, rank 0 also the
 * port it found free; one collecting fence, bounded by the timeout; then
 * every task reads the same data and so reaches the same choice. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_slurmenv.h"
#include "netlocal.h"
#include "wireup.h"

#define KEY_ADDRS "slurm-dist.addrs"
#define KEY_PORT  "slurm-dist.port"

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

static int fence(unsigned timeout_s, struct dist_err *err)
{
	pmix_info_t info[2];
	bool collect = true;
	int timeout = (int)timeout_s;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
	rc = PMIx_Fence(NULL, 0, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	if (rc == PMIX_ERR_TIMEOUT)
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
	return 0;
}

static uint32_t env_u32(const char *name, uint32_t fallback)
{
	uint32_t v;

	return dist_parse_u32(getenv(name), &v) == 0 ? v : fallback;
}

/* Under Slurm the job and step ids spread ports; elsewhere the namespace does. */
static void step_ids(uint32_t *jobid, uint32_t *stepid)
{
	uint32_t hash = 2166136261u;

	for (const char *c = me.nspace; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 16777619u;
	*jobid = env_u32("SLURM_JOB_ID", hash);
	*stepid = env_u32("SLURM_STEP_ID", 0);
}

/* What this task contributes to the fence. */
static int put_contribution(const struct wireup_request *req, const struct dist_world *w,
                            const struct dist_addr_list *local, struct dist_err *err)
{
	char text[2048];

	if (w->local_rank == 0 && !req->user_master_addr) {
		if (dist_addr_list_format(local, text, sizeof(text), err) ||
		    put_string(KEY_ADDRS, text, err))
			return -1;
	}
	if (w->rank == 0 && !req->user_master_port) {
		uint32_t jobid, stepid;
		uint16_t port;

		step_ids(&jobid, &stepid);
		if (wireup_pick_port(req, jobid, stepid, &port, err))
			return -1;
		snprintf(text, sizeof(text), "%u", port);
		if (put_string(KEY_PORT, text, err))
			return -1;
	}
	return 0;
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

static int leader_addrs(const struct wireup_request *req, pmix_rank_t leader,
                        struct dist_addr_list *list, struct dist_err *err)
{
	char text[2048];

	return get_string(leader, KEY_ADDRS, req->timeout_s, text, sizeof(text), err) ||
	       dist_addr_list_parse(text, list, err);
}

/* Lowest rank on NODE, and whether rank 0 lives there. */
static int node_leader(const char *node, pmix_rank_t *leader, bool *has_rank0, struct dist_err *err)
{
	pmix_proc_t *procs = NULL;
	size_t n = 0;
	pmix_status_t rc = PMIx_Resolve_peers(node, me.nspace, &procs, &n);

	if (rc != PMIX_SUCCESS || n == 0)
		return dist_err_set(err, "PMIx cannot list the tasks on node %s: %s", node,
		                    PMIx_Error_string(rc));
	*leader = procs[0].rank;
	for (size_t i = 1; i < n; i++)
		if (procs[i].rank < *leader)
			*leader = procs[i].rank;
	*has_rank0 = *leader == 0;
	PMIX_PROC_FREE(procs, n);
	return 0;
}

/* Reads every node's addresses and chooses rank 0's address all can reach. */
static int choose_master_addr(const struct wireup_request *req, struct dist_world *w,
                              struct dist_err *err)
{
	struct dist_addr_list master = {.count = 0}, *others;
	struct dist_ifaddr chosen;
	char *nodes = NULL, *save = NULL;
	size_t nothers = 0;
	int rc = -1;

	if (PMIx_Resolve_nodes(me.nspace, &nodes) != PMIX_SUCCESS || !nodes)
		return dist_err_set(err, "PMIx cannot list the step's nodes");
	others = calloc(w->nnodes ? w->nnodes : 1, sizeof(*others));
	if (!others) {
		free(nodes);
		return dist_err_set(err, "out of memory");
	}
	for (char *node = strtok_r(nodes, ",", &save); node; node = strtok_r(NULL, ",", &save)) {
		pmix_rank_t leader;
		bool has_rank0;

		if (node_leader(node, &leader, &has_rank0, err))
			goto out;
		if (!has_rank0 && nothers == w->nnodes)
			continue; /* more names than nodes: ignore rather than overflow */
		if (leader_addrs(req, leader, has_rank0 ? &master : &others[nothers], err))
			goto out;
		nothers += has_rank0 ? 0 : 1;
	}
	if (dist_choose_master(&master, others, nothers, &chosen, err))
		goto out;
	dist_ipv4_format(chosen.addr, w->master_addr);
	rc = 0;
out:
	free(others);
	free(nodes);
	return rc;
}

int wireup_pmix(const struct wireup_request *req, struct dist_world *w, struct dist_err *err)
{
	struct dist_addr_list local;
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	if (rc != PMIX_SUCCESS)
		return pmix_fail(err, "Init", rc);
	initialized = true;
	if (read_ranks(w, err) || netlocal_addrs(&local, err) ||
	    put_contribution(req, w, &local, err))
		return -1;
	rc = PMIx_Commit();
	if (rc != PMIX_SUCCESS)
		return pmix_fail(err, "Commit", rc);
	if (fence(req->timeout_s, err) || read_port(req, w, err))
		return -1;
	if (req->user_master_addr)
		snprintf(w->master_addr, sizeof(w->master_addr), "%s", req->user_master_addr);
	else if (choose_master_addr(req, w, err))
		return -1;
	wireup_find_master_ifname(w, &local);
	return 0;
}

void wireup_pmix_abort(const char *why)
{
	/* A task that fails before the fence still joins PMIx, to abort. */
	if (!initialized && wireup_pmix_available() && PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS)
		initialized = true;
	if (initialized)
		PMIx_Abort(1, why, NULL, 0);
}

void wireup_pmix_finalize(void)
{
	if (initialized)
		PMIx_Finalize(NULL, 0);
	initialized = false;
}
