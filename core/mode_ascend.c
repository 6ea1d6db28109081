/* ascend: Huawei Ascend NPU jobs as ModelArts and Ascend clusters run them:
 * an HCCL rank table (v1.0) written once per node, RANK_TABLE_FILE and the
 * per-task device variables, and the ddp contract for torch_npu's hccl
 * backend. Each node's first task read its NPUs' IPs from hccn.conf; the
 * fence brought every node's list here (dist_world.node_extras). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_buf.h"
#include "dist_mode.h"
#include "dist_npu.h"

#define RANK_TABLE "rank_table.json"

/* Every node's NPUs, parsed; all nodes must use as many as they have tasks,
 * and the same number. */
struct npu_table {
	struct dist_npu npus[DIST_NPUS_MAX];
	uint32_t count;
};

static int read_npu_tables(const struct dist_world *w, struct npu_table *tables,
                           struct dist_err *err)
{
	if (!w->nodes || !w->node_extras || !w->ranks_by_node)
		return dist_err_set(err, "the NPU tables were not gathered for mode ascend");
	for (uint32_t k = 0; k < w->nnodes; k++) {
		if (dist_npus_parse(w->node_extras[k] ? w->node_extras[k] : "", tables[k].npus,
		                    DIST_NPUS_MAX, &tables[k].count, err))
			return -1;
		if (tables[k].count != w->nodes[k].ntasks)
			return dist_err_set(err, "node %s reported %u NPUs for %u tasks",
			                    w->nodes[k].addr, tables[k].count, w->nodes[k].ntasks);
		if (tables[k].count != tables[0].count)
			return dist_err_set(
			        err,
			        "nodes use different numbers of NPUs (%s: %u, %s: %u); HCCL "
			        "needs the same on every server",
			        w->nodes[0].addr, tables[0].count, w->nodes[k].addr,
			        tables[k].count);
	}
	return 0;
}

static json_t *device_entry(const struct dist_npu *npu, uint32_t rank)
{
	char id[16], rank_id[16];

	snprintf(id, sizeof(id), "%u", npu->id);
	snprintf(rank_id, sizeof(rank_id), "%u", rank);
	return json_pack("{s:s, s:s, s:s}", "device_id", id, "device_ip", npu->ip, "rank_id",
	                 rank_id);
}

/* json_dump_callback's sink: appends to a dist_buf. */
static int append_json(const char *text, size_t len, void *buf)
{
	return dist_buf_appendn(buf, text, len);
}

/* Rank table v1.0: every value a string, servers in node order, each
 * node's devices in local rank order with the global rank using them. */
static char *build_rank_table(const struct dist_world *w, const struct npu_table *tables)
{
	json_t *servers = json_array(), *table;
	struct dist_buf text = DIST_BUF_INIT;
	char count[16];
	uint32_t offset = 0;

	for (uint32_t k = 0; servers && k < w->nnodes; k++) {
		json_t *devices = json_array();

		for (uint32_t j = 0; devices && j < tables[k].count; j++)
			json_array_append_new(devices, device_entry(&tables[k].npus[j],
			                                            w->ranks_by_node[offset + j]));
		offset += w->nodes[k].ntasks;
		json_array_append_new(servers, json_pack("{s:s, s:o}", "server_id",
		                                         w->nodes[k].addr, "device", devices));
	}
	snprintf(count, sizeof(count), "%u", w->nnodes);
	table = json_pack("{s:s, s:s, s:s, s:o}", "version", "1.0", "server_count", count, "status",
	                  "completed", "server_list", servers);
	if (!table)
		return NULL;
	/* A text file ends with a newline; JSON's text does not. */
	if (json_dump_callback(table, append_json, &text, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		text.failed = true;
	dist_buf_append(&text, "\n");
	json_decref(table);
	return dist_buf_take(&text);
}

static int ascend_build_files(const struct dist_world *w, struct dist_files *files,
                              struct dist_err *err)
{
	struct npu_table *tables = calloc(w->nnodes ? w->nnodes : 1, sizeof(*tables));
	int rc = -1;

	if (!tables)
		return dist_err_set(err, "out of memory");
	if (read_npu_tables(w, tables, err) == 0)
		rc = dist_files_add(files, RANK_TABLE, build_rank_table(w, tables), err);
	free(tables);
	return rc;
}

/* ASCEND_DEVICE_ID is the logical id: the task's index among the NPUs it
 * sees. Isolated (--dist-npu-isolate, as ModelArts runs one process per
 * card), a task sees only its own NPU, which is then logical 0; that
 * replaces the step-wide ASCEND_RT_VISIBLE_DEVICES it was chosen from. */
static int set_visible_devices(const struct dist_world *w, const struct dist_npu *mine,
                               struct dist_env *env, struct dist_err *err)
{
	char id[16];

	if (!w->npu_isolate)
		return dist_env_setf(env, err, "ASCEND_DEVICE_ID", "%u", w->local_rank);
	snprintf(id, sizeof(id), "%u", mine->id);
	if (dist_env_replace(env, "ASCEND_RT_VISIBLE_DEVICES", id, err) ||
	    dist_env_replace(env, "ASCEND_DEVICE_ID", "0", err))
		return -1;
	return 0;
}

static int ascend_build_env(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	struct npu_table *tables = calloc(w->nnodes ? w->nnodes : 1, sizeof(*tables));
	int rc = -1;

	if (!tables)
		return dist_err_set(err, "out of memory");
	if (!w->step_dir)
		dist_err_set(err, "mode ascend needs the step's directory");
	else if (read_npu_tables(w, tables, err) == 0 &&
	         dist_mode_ddp.build_env(w, env, err) == 0 &&
	         dist_env_setf(env, err, "RANK_TABLE_FILE", "%s/" RANK_TABLE, w->step_dir) == 0 &&
	         dist_env_setf(env, err, "RANK_ID", "%u", w->rank) == 0 &&
	         dist_env_setf(env, err, "RANK_SIZE", "%u", w->size) == 0 &&
	         dist_env_setf(env, err, "DEVICE_ID", "%u",
	                       tables[w->node_rank].npus[w->local_rank].id) == 0 &&
	         set_visible_devices(w, &tables[w->node_rank].npus[w->local_rank], env, err) == 0 &&
	         dist_env_setf(env, err, "HCCL_IF_BASE_PORT", "%u", w->hccl_base_port) == 0)
		rc = 0;
	free(tables);
	return rc;
}

const struct dist_mode dist_mode_ascend = {
        .name = "ascend",
        .summary = "Huawei Ascend: HCCL rank table, RANK_TABLE_FILE, DEVICE_ID, RANK_ID...",
        .needs_nodes = true,
        .needs_npus = true,
        .build_env = ascend_build_env,
        .build_files = ascend_build_files,
};
