/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PMIx transport of the exchange (wireup/transport.h): srun --mpi=pmix,
 * or any PMIx launcher. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/module.h"
#include "wireup/transport.h"

static pmix_proc_t me;
static bool initialized;

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

static int pmix_init(const struct wireup_host *host, struct dist_world *w, struct dist_err *err)
{
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	(void)host; /* PMIx describes every layout itself */
	if (rc != PMIX_SUCCESS)
		return pmix_fail(err, "Init", rc);
	initialized = true;
	if (get_u32(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &w->size, err) ||
	    get_u32(me.rank, PMIX_LOCAL_RANK, &w->local_rank, err) ||
	    get_u32(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &w->local_size, err) ||
	    get_u32(me.rank, PMIX_NODEID, &w->node_rank, err) ||
	    get_u32(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, &w->nnodes, err))
		return -1;
	w->rank = me.rank;
	return 0;
}

static int pmix_put(const char *key, const char *value, struct dist_err *err)
{
	pmix_value_t val;
	pmix_status_t rc;

	PMIX_VALUE_LOAD(&val, value, PMIX_STRING);
	rc = PMIx_Put(PMIX_GLOBAL, key, &val);
	PMIX_VALUE_DESTRUCT(&val);
	return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, "Put", rc);
}

static int pmix_commit(struct dist_err *err)
{
	pmix_status_t rc = PMIx_Commit();

	return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, "Commit", rc);
}

/* Slurm's PMIx server ignores a client's PMIX_TIMEOUT on a fence, so the
 * wait is bounded here: non-blocking fence, timed wait for its callback.
 * Static because the callback may still come after we gave up. */
static struct wireup_wait fence_wait = WIREUP_WAIT_INIT;

static void on_fence_done(pmix_status_t status, void *cbdata)
{
	(void)cbdata;
	wireup_wait_done(&fence_wait, status);
}

static int pmix_fence(unsigned timeout_s, struct dist_err *err)
{
	pmix_info_t info;
	bool collect = true;
	pmix_status_t rc;

	wireup_wait_reset(&fence_wait);
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	rc = PMIx_Fence_nb(NULL, 0, &info, 1, on_fence_done, NULL);
	PMIX_INFO_DESTRUCT(&info);
	if (rc == PMIX_OPERATION_SUCCEEDED)
		return 0;
	if (rc != PMIX_SUCCESS)
		return pmix_fail(err, "Fence", rc);
	if (wireup_wait_for(&fence_wait, timeout_s, &rc, err))
		return -1;
	return rc == PMIX_SUCCESS ? 0 : pmix_fail(err, "Fence", rc);
}

/* Gets a string another task put before the fence. */
static int pmix_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
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

static int compare_ranks(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int describe_node(const char *name, struct wireup_node *node, struct dist_err *err)
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
	node->ntasks = (uint32_t)n;
	PMIX_PROC_FREE(procs, n);
	return 0;
}

/* The step's nodes by name, and each one's tasks. */
static int pmix_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                       uint32_t *count, struct dist_err *err)
{
	char *names = NULL, *save = NULL;
	int rc = 0;

	(void)w;
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
	return rc;
}

static void pmix_abort(const char *why)
{
	if (!initialized) {
		/* A task that never joined PMIx (its program was to) joins only
		 * to end the step, after a moment's grace (WIREUP_ABORT_GRACE_S). */
		sleep(WIREUP_ABORT_GRACE_S);
		initialized = PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS;
	}
	if (initialized)
		PMIx_Abort(1, why, NULL, 0);
}

static void pmix_finalize(void)
{
	if (initialized)
		PMIx_Finalize(NULL, 0);
	initialized = false;
}

static const struct wireup_transport pmix_transport = {
        .name = "PMIx",
        .max_value = SIZE_MAX,
        .init = pmix_init,
        .put = pmix_put,
        .commit = pmix_commit,
        .fence = pmix_fence,
        .get = pmix_get,
        .layout = pmix_layout,
        .abort = pmix_abort,
        .finalize = pmix_finalize,
};

MODULE_EXPORT const struct transport_module dist_shim_module_pmix = {MODULE_ABI, &pmix_transport};
