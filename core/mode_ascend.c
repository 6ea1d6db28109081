/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ascend: Huawei Ascend NPU jobs as ModelArts and Ascend clusters run them:
 * an HCCL rank table (v1.0) written once per node, RANK_TABLE_FILE and the
 * per-task device variables, and the ddp contract for torch_npu's hccl
 * backend. Each node's first task read its NPUs' IPs from hccn.conf; the
 * fence brought every node's list here (dist_world.node_extras). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_buf.h"
#include "dist_mode.h"
#include "dist_npu.h"

#define RANK_TABLE "rank_table.json"

/* One node's NPUs, parsed. */
struct npu_table {
	struct dist_npu npus[DIST_NPUS_MAX];
	uint32_t count;
};

/* Node K's NPUs into T; every node must use as many as it has tasks, and as
 * many as node 0 (FIRST, read first). One node at a time: what the step's
 * nodes reported is never held parsed all at once. */
static int read_node_npus(const struct dist_world *w, uint32_t k, const struct npu_table *first,
                          struct npu_table *t, struct dist_err *err)
{
	if (dist_npus_parse(w->node_extras[k] ? w->node_extras[k] : "", t->npus, DIST_NPUS_MAX,
	                    &t->count, err))
		return -1;
	if (t->count != w->nodes[k].ntasks)
		return dist_err_set(err, "node %s reported %u NPUs for %u tasks", w->nodes[k].addr,
		                    t->count, w->nodes[k].ntasks);
	if (k > 0 && t->count != first->count)
		return dist_err_set(err,
		                    "nodes use different numbers of NPUs (%s: %u, %s: %u); HCCL "
		                    "needs the same on every server",
		                    w->nodes[0].addr, first->count, w->nodes[k].addr, t->count);
	return 0;
}

static int check_gathered(const struct dist_world *w, struct dist_err *err)
{
	if (!w->nodes || !w->node_extras || !w->ranks_by_node)
		return dist_err_set(err, "the NPU tables were not gathered for mode ascend");
	return 0;
}

/* Checks every node's NPUs; fills MINE with this task's node's. */
static int read_npu_tables(const struct dist_world *w, struct npu_table *mine, struct dist_err *err)
{
	struct npu_table first = {.count = 0}, t;

	if (check_gathered(w, err))
		return -1;
	for (uint32_t k = 0; k < w->nnodes; k++) {
		if (read_node_npus(w, k, &first, k ? &t : &first, err))
			return -1;
		if (k == w->node_rank)
			*mine = k ? t : first;
	}
	return 0;
}

/* TEXT as a JSON string, escaped as jansson escapes it. Addresses and
 * device IPs are plain ASCII (checked where they are parsed), so this is
 * the quotes around them in practice. */
static void append_json_string(struct dist_buf *out, const char *text)
{
	dist_buf_append(out, "\"");
	for (const char *p = text; *p;) {
		size_t plain = 0;

		while (p[plain] && p[plain] != '"' && p[plain] != '\\' &&
		       (unsigned char)p[plain] >= 0x20)
			plain++;
		dist_buf_appendn(out, p, plain);
		p += plain;
		if (!*p)
			break;
		if (*p == '"' || *p == '\\')
			dist_buf_appendf(out, "\\%c", *p);
		else if (*p == '\n')
			dist_buf_append(out, "\\n");
		else if (*p == '\t')
			dist_buf_append(out, "\\t");
		else if (*p == '\r')
			dist_buf_append(out, "\\r");
		else if (*p == '\b')
			dist_buf_append(out, "\\b");
		else if (*p == '\f')
			dist_buf_append(out, "\\f");
		else
			dist_buf_appendf(out, "\\u%04X", (unsigned)(unsigned char)*p);
		p++;
	}
	dist_buf_append(out, "\"");
}

/* One server of the rank table: node K, its devices T, its first rank at
 * ranks_by_node[OFFSET]. */
static void append_server(struct dist_buf *out, const struct dist_world *w, uint32_t k,
                          const struct npu_table *t, uint32_t offset)
{
	dist_buf_append(out, "    {\n      \"server_id\": ");
	append_json_string(out, w->nodes[k].addr);
	dist_buf_append(out, t->count ? ",\n      \"device\": [\n" : ",\n      \"device\": []\n");
	for (uint32_t j = 0; j < t->count; j++) {
		dist_buf_appendf(out, "        {\n          \"device_id\": \"%u\",\n",
		                 t->npus[j].id);
		dist_buf_append(out, "          \"device_ip\": ");
		append_json_string(out, t->npus[j].ip);
		dist_buf_appendf(out, ",\n          \"rank_id\": \"%u\"\n        }%s\n",
		                 w->ranks_by_node[offset + j], j + 1 < t->count ? "," : "");
	}
	if (t->count)
		dist_buf_append(out, "      ]\n");
	dist_buf_appendf(out, "    }%s\n", k + 1 < w->nnodes ? "," : "");
}

/* Rank table v1.0: every value a string, servers in node order, each
 * node's devices in local rank order with the global rank using them.
 * Written straight as text, node after node (JSON indented by 2, as
 * jansson's JSON_INDENT(2) writes it, and a final newline): O(text) time
 * and memory. */
static int build_rank_table(const struct dist_world *w, char **text, struct dist_err *err)
{
	struct dist_buf out = DIST_BUF_INIT;
	struct npu_table first = {.count = 0}, t;
	uint32_t offset = 0;

	*text = NULL;
	if (check_gathered(w, err))
		return -1;
	/* About 130 bytes a device and 60 a server: one allocation, no copies
	 * (pages reserved and never written cost nothing). */
	dist_buf_reserve(&out, 128 + (size_t)w->nnodes * 64 + (size_t)w->size * 144);
	dist_buf_appendf(&out,
	                 "{\n  \"version\": \"1.0\",\n  \"server_count\": \"%u\",\n"
	                 "  \"status\": \"completed\",\n  \"server_list\": [%s",
	                 w->nnodes, w->nnodes ? "\n" : "]\n}\n");
	for (uint32_t k = 0; k < w->nnodes; k++) {
		struct npu_table *node = k ? &t : &first;

		if (read_node_npus(w, k, &first, node, err)) {
			dist_buf_free(&out);
			return -1;
		}
		append_server(&out, w, k, node, offset);
		offset += w->nodes[k].ntasks;
	}
	if (w->nnodes)
		dist_buf_append(&out, "  ]\n}\n");
	*text = dist_buf_take(&out);
	return 0;
}

static int ascend_build_files(const struct dist_world *w, struct dist_files *files,
                              struct dist_err *err)
{
	char *text;

	if (build_rank_table(w, &text, err))
		return -1;
	return dist_files_add(files, RANK_TABLE, text, err);
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
	struct npu_table mine;

	if (!w->step_dir)
		return dist_err_set(err, "mode ascend needs the step's directory");
	if (read_npu_tables(w, &mine, err) || dist_mode_ddp.build_env(w, env, err) ||
	    dist_env_setf(env, err, "RANK_TABLE_FILE", "%s/" RANK_TABLE, w->step_dir) ||
	    dist_env_setf(env, err, "RANK_ID", "%u", w->rank) ||
	    dist_env_setf(env, err, "RANK_SIZE", "%u", w->size) ||
	    dist_env_setf(env, err, "DEVICE_ID", "%u", mine.npus[w->local_rank].id) ||
	    set_visible_devices(w, &mine.npus[w->local_rank], env, err) ||
	    dist_env_setf(env, err, "HCCL_IF_BASE_PORT", "%u", w->hccl_base_port))
		return -1;
	return 0;
}

const struct dist_mode dist_mode_ascend = {
        .name = "ascend",
        .summary = "Huawei Ascend: HCCL rank table, RANK_TABLE_FILE, DEVICE_ID, RANK_ID...",
        .needs_nodes = true,
        .needs_npus = true,
        .build_env = ascend_build_env,
        .build_files = ascend_build_files,
};
