/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PMI2 transport of the exchange (wireup/transport.h): Slurm's own
 * PMI2 (srun --mpi=pmi2, in every Slurm build), for sites whose Slurm has
 * no PMIx plugin. PMI2's key-value store is one for the whole job, so each
 * key carries the rank that put it; which node runs which rank comes from
 * the job attribute PMI_process_mapping, checked against Slurm's variables;
 * PMI2_KVS_Fence has no timeout, so a helper thread runs it and the task
 * waits for it with its own deadline. */
#include <pthread.h>
#include <slurm/pmi2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/module.h"
#include "dist_pmimap.h"
#include "dist_slurmenv.h"
#include "wireup/transport.h"

static bool initialized;
static int my_rank;
static char job_id[PMI2_MAX_VALLEN];
/* The node of every rank, from PMI_process_mapping (malloc'd). */
static uint32_t *node_of;

static int pmi2_fail(struct dist_err *err, const char *what, int rc)
{
	return dist_err_set(err, "PMI2 %s failed (PMI2 error %d)", what, rc);
}

/* Slurm's variable NAME, when set, must say what PMI2 said. */
static int cross_check(const char *name, uint32_t pmi2_value, struct dist_err *err)
{
	const char *text = getenv(name);
	uint32_t v;

	if (!text)
		return 0;
	if (dist_parse_u32(text, &v) || v != pmi2_value)
		return dist_err_set(err, "PMI2 and Slurm disagree: PMI2 gives %u where %s is '%s'",
		                    pmi2_value, name, text);
	return 0;
}

/* This task's node and place on it, from PMI_process_mapping. */
static int read_layout(const struct wireup_host *host, struct dist_world *w, struct dist_err *err)
{
	char mapping[PMI2_MAX_ATTRVALUE + 1];
	uint32_t nnodes;
	int found = 0, rc;

	rc = PMI2_Info_GetJobAttr("PMI_process_mapping", mapping, sizeof(mapping) - 1, &found);
	if (rc != PMI2_SUCCESS)
		return pmi2_fail(err, "Info_GetJobAttr(PMI_process_mapping)", rc);
	if (!found)
		return dist_err_set(err, "PMI2 serves no PMI_process_mapping");
	mapping[sizeof(mapping) - 1] = '\0';
	free(node_of);
	node_of = calloc(w->size, sizeof(*node_of));
	if (!node_of)
		return dist_err_set(err, "out of memory");
	if (dist_pmi_mapping_parse(mapping, w->size, node_of, &w->nnodes, err))
		return -1;
	/* Slurm cannot express an arbitrary distribution in this form (it then
	 * gives every rank a node of its own): slurmctld has the layout. */
	if (getenv("SLURM_STEP_NUM_NODES") &&
	    dist_parse_u32(getenv("SLURM_STEP_NUM_NODES"), &nnodes) == 0 && nnodes != w->nnodes) {
		w->nnodes = nnodes;
		if (host->slurm_node_of(w->size, w->nnodes, node_of, err))
			return -1;
	}
	w->node_rank = node_of[w->rank];
	w->local_rank = w->local_size = 0;
	for (uint32_t r = 0; r < w->size; r++)
		if (node_of[r] == w->node_rank) {
			w->local_rank += r < w->rank;
			w->local_size++;
		}
	return 0;
}

static int pmi2_init(const struct wireup_host *host, struct dist_world *w, struct dist_err *err)
{
	int spawned = 0, size = 0, rank = -1, appnum = 0;
	int rc = PMI2_Init(&spawned, &size, &rank, &appnum);

	if (rc != PMI2_SUCCESS)
		return pmi2_fail(err, "Init", rc);
	initialized = true;
	if (size <= 0 || rank < 0 || rank >= size)
		return dist_err_set(err, "PMI2 gave rank %d of %d", rank, size);
	w->rank = (uint32_t)rank;
	w->size = (uint32_t)size;
	my_rank = rank;
	rc = PMI2_Job_GetId(job_id, sizeof(job_id));
	if (rc != PMI2_SUCCESS)
		return pmi2_fail(err, "Job_GetId", rc);
	if (read_layout(host, w, err) || cross_check("SLURM_PROCID", w->rank, err) ||
	    cross_check("SLURM_NTASKS", w->size, err) ||
	    cross_check("SLURM_STEP_NUM_NODES", w->nnodes, err) ||
	    cross_check("SLURM_NODEID", w->node_rank, err) ||
	    cross_check("SLURM_LOCALID", w->local_rank, err))
		return -1;
	return 0;
}

/* The job-wide key for KEY put by RANK. */
static int rank_key(const char *key, uint32_t rank, char *out, struct dist_err *err)
{
	if ((size_t)snprintf(out, PMI2_MAX_KEYLEN, "%s.%u", key, rank) >= PMI2_MAX_KEYLEN)
		return dist_err_set(err, "PMI2 key %s too long", key);
	return 0;
}

/* TEXT as PMI2's wire protocol can carry it (';' ends a value there, even
 * an abort's message), in a buffer of PMI2_MAX_VALLEN; -1 if too long. */
static int wire_text(const char *text, char *out)
{
	int n = snprintf(out, PMI2_MAX_VALLEN, "%s", text);

	for (char *c = strchr(out, ';'); c; c = strchr(c, ';'))
		*c = ',';
	return n < 0 || n >= PMI2_MAX_VALLEN ? -1 : 0;
}

static int pmi2_put(const char *key, const char *value, struct dist_err *err)
{
	char name[PMI2_MAX_KEYLEN], text[PMI2_MAX_VALLEN];
	int rc;

	if (rank_key(key, (uint32_t)my_rank, name, err))
		return -1;
	if (wire_text(value, text))
		return dist_err_set(err, "%s is longer than the %d bytes PMI2 carries", key,
		                    PMI2_MAX_VALLEN - 1);
	rc = PMI2_KVS_Put(name, text);
	return rc == PMI2_SUCCESS ? 0 : pmi2_fail(err, "KVS_Put", rc);
}

/* PMI2 publishes what was put at the fence. */
static int pmi2_commit(struct dist_err *err)
{
	(void)err;
	return 0;
}

/* Static: the thread may still be in the fence when the task gives up. */
static struct wireup_wait fence_wait = WIREUP_WAIT_INIT;

static void *run_fence(void *arg)
{
	(void)arg;
	wireup_wait_done(&fence_wait, PMI2_KVS_Fence());
	return NULL;
}

static int pmi2_fence(unsigned timeout_s, struct dist_err *err)
{
	pthread_t thread;
	int rc;

	wireup_wait_reset(&fence_wait);
	rc = pthread_create(&thread, NULL, run_fence, NULL);

	if (rc != 0)
		return dist_err_set(err, "cannot start the PMI2 fence's thread: %s", strerror(rc));
	if (wireup_wait_for(&fence_wait, timeout_s, &rc, err)) {
		pthread_detach(thread);
		return -1;
	}
	pthread_join(thread, NULL);
	return rc == PMI2_SUCCESS ? 0 : pmi2_fail(err, "KVS_Fence", rc);
}

static int pmi2_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                    struct dist_err *err)
{
	char name[PMI2_MAX_KEYLEN], text[PMI2_MAX_VALLEN + 1];
	int vallen = 0, rc;

	(void)timeout_s; /* after the fence the value is on this node */
	if (rank_key(key, rank, name, err))
		return -1;
	rc = PMI2_KVS_Get(job_id, (int)rank, name, text, PMI2_MAX_VALLEN, &vallen);
	if (rc != PMI2_SUCCESS)
		return dist_err_set(err, "rank %u did not publish %s (PMI2 error %d)", rank, key,
		                    rc);
	text[PMI2_MAX_VALLEN] = '\0';
	if (vallen < 0 || (size_t)snprintf(buf, len, "%s", text) >= len)
		return dist_err_set(err, "rank %u published a malformed %s", rank, key);
	return 0;
}

/* Every node's ranks, ascending, from PMI_process_mapping. */
static int pmi2_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                       uint32_t *count, struct dist_err *err)
{
	*count = 0;
	if (!node_of || w->nnodes > max)
		return dist_err_set(err, "PMI2 gave no node layout for %u nodes", w->nnodes);
	for (uint32_t r = 0; r < w->size; r++)
		nodes[node_of[r]].ntasks++;
	for (uint32_t n = 0; n < w->nnodes; n++) {
		nodes[n].ranks = calloc(nodes[n].ntasks, sizeof(*nodes[n].ranks));
		if (!nodes[n].ranks)
			return dist_err_set(err, "out of memory");
		nodes[n].ntasks = 0;
	}
	*count = w->nnodes;
	for (uint32_t r = 0; r < w->size; r++)
		nodes[node_of[r]].ranks[nodes[node_of[r]].ntasks++] = r;
	return 0;
}

static void pmi2_abort(const char *why)
{
	int spawned, size, rank, appnum;
	char text[PMI2_MAX_VALLEN];

	if (!initialized) {
		/* A task that never connected (its program was to) connects
		 * only to end the step, after WIREUP_ABORT_GRACE_S. */
		sleep(WIREUP_ABORT_GRACE_S);
		initialized = PMI2_Init(&spawned, &size, &rank, &appnum) == PMI2_SUCCESS;
	}
	/* PMI2_Abort exits this process; the message goes to srun. */
	wire_text(why, text); /* cut if need be */
	if (initialized)
		PMI2_Abort(1, text);
}

static void pmi2_finalize(void)
{
	if (initialized)
		PMI2_Finalize();
	initialized = false;
}

static const struct wireup_transport pmi2_transport = {
        .name = "PMI2",
        .max_value = PMI2_MAX_VALLEN,
        .init = pmi2_init,
        .put = pmi2_put,
        .commit = pmi2_commit,
        .fence = pmi2_fence,
        .get = pmi2_get,
        .layout = pmi2_layout,
        .abort = pmi2_abort,
        .finalize = pmi2_finalize,
};

MODULE_EXPORT const struct transport_module dist_shim_module_pmi2 = {MODULE_ABI, &pmi2_transport};
