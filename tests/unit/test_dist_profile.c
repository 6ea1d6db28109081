/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_profile.c: parsing --dist-compat, rendering value
 * sources, and the variables and arguments each platform profile adds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_profile.h"
#include "many_nodes.h"

#define INVALID_MSG(list)                                                                          \
	"invalid --dist-compat '" list                                                             \
	"': valid profiles are modelarts|tione|azureml|kubeflow|mindspore, "                       \
	"comma-separated"

/* Two nodes, four tasks and two GPUs each. */
static const struct dist_node two_nodes[] = {
        {"10.0.0.1", 4, 2, 0, 0},
        {"10.0.0.2", 4, 2, 0, 1},
};

/* Rank 5 of 8: the second task of the second node. */
static struct dist_world world_8x2(void)
{
	struct dist_world w = {
	        .rank = 5,
	        .size = 8,
	        .local_rank = 1,
	        .local_size = 4,
	        .node_rank = 1,
	        .nnodes = 2,
	        .master_addr = "10.0.0.1",
	        .master_port = 29500,
	        .master_ifname = "eth0",
	        .local_gpus = 2,
	        .nodes = two_nodes,
	};

	return w;
}

/* The single profile NAME; fails the test when it does not parse. */
static const struct dist_profile *profile(const char *name)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 0;

	assert_int_equal(dist_profiles_parse(name, list, &count, &err), 0);
	assert_int_equal(count, 1);
	assert_string_equal(list[0]->name, name);
	return list[0];
}

/* SOURCE rendered for W; fails the test on an error. */
static const char *render(enum dist_source source, const struct dist_world *w)
{
	static char text[256];
	struct dist_buf buf = DIST_BUF_INIT;
	struct dist_err err = {{0}};

	assert_int_equal(dist_source_render(source, w, &buf, &err), 0);
	snprintf(text, sizeof(text), "%s", dist_buf_str(&buf));
	dist_buf_free(&buf);
	return text;
}

/* What ddp would have set before the profiles run. */
static void ddp_env(struct dist_env *env, const struct dist_world *w)
{
	struct dist_err err = {{0}};

	dist_env_init(env);
	assert_int_equal(dist_env_setf(env, &err, "RANK", "%u", w->rank), 0);
	assert_int_equal(dist_env_setf(env, &err, "WORLD_SIZE", "%u", w->size), 0);
	assert_int_equal(dist_env_setf(env, &err, "LOCAL_RANK", "%u", w->local_rank), 0);
	assert_int_equal(dist_env_set(env, "MASTER_ADDR", w->master_addr, &err), 0);
	assert_int_equal(dist_env_setf(env, &err, "MASTER_PORT", "%u", w->master_port), 0);
}

/* ---- dist_profiles_parse ---- */

static void test_parse_single(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX] = {NULL};
	struct dist_err err = {{0}};
	size_t count = 99;

	(void)state;
	assert_int_equal(dist_profiles_parse("modelarts", list, &count, &err), 0);
	assert_int_equal(count, 1);
	assert_string_equal(list[0]->name, "modelarts");
	assert_string_equal(list[0]->platform, "Huawei ModelArts");
	assert_string_equal(err.msg, "");
	for (const char *const *name = (const char *const[]){"tione", "azureml", "kubeflow", NULL};
	     *name; name++) {
		count = 99;
		assert_int_equal(dist_profiles_parse(*name, list, &count, &err), 0);
		assert_int_equal(count, 1);
		assert_string_equal(list[0]->name, *name);
	}
}

static void test_parse_several_keeps_order(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX] = {NULL};
	struct dist_err err = {{0}};
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("tione,kubeflow", list, &count, &err), 0);
	assert_int_equal(count, 2);
	assert_string_equal(list[0]->name, "tione");
	assert_string_equal(list[1]->name, "kubeflow");

	assert_int_equal(
	        dist_profiles_parse("kubeflow,azureml,tione,modelarts", list, &count, &err), 0);
	assert_int_equal(count, 4);
	assert_string_equal(list[0]->name, "kubeflow");
	assert_string_equal(list[1]->name, "azureml");
	assert_string_equal(list[2]->name, "tione");
	assert_string_equal(list[3]->name, "modelarts");
}

static void test_parse_unknown_name(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 99;

	(void)state;
	assert_int_equal(dist_profiles_parse("X", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("X"));
	assert_int_equal(count, 0);

	/* An unknown name after a good one names the whole list. */
	assert_int_equal(dist_profiles_parse("tione,sagemaker", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("tione,sagemaker"));

	/* Names are case-sensitive. */
	assert_int_equal(dist_profiles_parse("TIONE", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("TIONE"));
}

static void test_parse_empty_and_null(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 99;
	const char *expected = "empty --dist-compat: valid profiles are "
	                       "modelarts|tione|azureml|kubeflow|mindspore, comma-separated";

	(void)state;
	assert_int_equal(dist_profiles_parse("", list, &count, &err), -1);
	assert_string_equal(err.msg, expected);
	assert_int_equal(count, 0);

	memset(&err, 0, sizeof(err));
	count = 99;
	assert_int_equal(dist_profiles_parse(NULL, list, &count, &err), -1);
	assert_string_equal(err.msg, expected);
	assert_int_equal(count, 0);
}

static void test_parse_repeated_name(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("tione,tione", list, &count, &err), -1);
	assert_string_equal(err.msg, "--dist-compat 'tione,tione' names tione twice");

	assert_int_equal(dist_profiles_parse("azureml,kubeflow,azureml", list, &count, &err), -1);
	assert_string_equal(err.msg,
	                    "--dist-compat 'azureml,kubeflow,azureml' names azureml twice");
}

static void test_parse_trailing_comma(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("tione,", list, &count, &err), -1);
	assert_string_equal(err.msg, "invalid --dist-compat 'tione,': trailing comma");

	assert_int_equal(dist_profiles_parse("tione,kubeflow,", list, &count, &err), -1);
	assert_string_equal(err.msg, "invalid --dist-compat 'tione,kubeflow,': trailing comma");
}

static void test_parse_leading_and_double_comma(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse(",tione", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG(",tione"));

	assert_int_equal(dist_profiles_parse(",", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG(","));

	assert_int_equal(dist_profiles_parse("tione,,kubeflow", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("tione,,kubeflow"));
}

static void test_parse_prefix_and_extension_rejected(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_err err = {{0}};
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("tion", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("tion"));

	assert_int_equal(dist_profiles_parse("tiones", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("tiones"));

	assert_int_equal(dist_profiles_parse("kubeflow,tion", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG("kubeflow,tion"));

	assert_int_equal(dist_profiles_parse(" tione", list, &count, &err), -1);
	assert_string_equal(err.msg, INVALID_MSG(" tione"));
}

static void test_choices(void **state)
{
	(void)state;
	assert_string_equal(dist_profile_choices(), "modelarts|tione|azureml|kubeflow|mindspore");
}

/* ---- dist_profile_needs_nodes ---- */

static void test_needs_nodes(void **state)
{
	(void)state;
	assert_true(dist_profile_needs_nodes(profile("modelarts")));
	assert_true(dist_profile_needs_nodes(profile("tione")));
	/* azureml lists every node's address (AZ_BATCH_HOST_LIST). */
	assert_true(dist_profile_needs_nodes(profile("azureml")));
	assert_false(dist_profile_needs_nodes(profile("kubeflow")));
}

static void test_needs_nodes_from_args_only(void **state)
{
	static const struct dist_profile_arg args[] = {{"--hosts", SRC_HOST_LIST, false}};
	static const struct dist_profile_arg plain_args[] = {{"--rank", SRC_RANK, false}};
	const struct dist_profile with_table = {"t", "T", NULL, 0, args, 1, "ddp"};
	const struct dist_profile without = {"u", "U", NULL, 0, plain_args, 1, "ddp"};

	/* The boundary: SRC_NODE_ADDR is the first node-table source. */
	static const struct dist_profile_var addr_var[] = {{"ADDR", SRC_NODE_ADDR}};
	static const struct dist_profile_var procs_var[] = {{"PROCS", SRC_PROCS_PER_NODE}};
	const struct dist_profile addr_only = {"a", "A", addr_var, 1, NULL, 0, "ddp"};
	const struct dist_profile procs_only = {"p", "P", procs_var, 1, NULL, 0, "ddp"};

	(void)state;
	assert_true(dist_profile_needs_nodes(&with_table));
	assert_false(dist_profile_needs_nodes(&without));
	assert_true(dist_profile_needs_nodes(&addr_only));
	assert_false(dist_profile_needs_nodes(&procs_only));
}

/* ---- dist_source_render ---- */

static void test_render_world_sources(void **state)
{
	struct dist_world w = world_8x2();

	(void)state;
	assert_string_equal(render(SRC_RANK, &w), "5");
	assert_string_equal(render(SRC_WORLD_SIZE, &w), "8");
	assert_string_equal(render(SRC_LOCAL_RANK, &w), "1");
	assert_string_equal(render(SRC_NODE_RANK, &w), "1");
	assert_string_equal(render(SRC_NNODES, &w), "2");
	assert_string_equal(render(SRC_MASTER_ADDR, &w), "10.0.0.1");
	assert_string_equal(render(SRC_MASTER_PORT, &w), "29500");
	assert_string_equal(render(SRC_MASTER_ADDR_PORT, &w), "10.0.0.1:29500");
	assert_string_equal(render(SRC_TCP_INIT_METHOD, &w), "tcp://10.0.0.1:29500");
	assert_string_equal(render(SRC_PROCS_PER_NODE, &w), "2");
}

static void test_render_world_sources_need_no_node_table(void **state)
{
	struct dist_world w = world_8x2();

	(void)state;
	w.nodes = NULL;
	assert_string_equal(render(SRC_RANK, &w), "5");
	assert_string_equal(render(SRC_NODE_RANK, &w), "1");
	assert_string_equal(render(SRC_TCP_INIT_METHOD, &w), "tcp://10.0.0.1:29500");
	assert_string_equal(render(SRC_PROCS_PER_NODE, &w), "2");
}

static void test_render_procs_per_node_at_least_one(void **state)
{
	struct dist_world w = world_8x2();

	(void)state;
	w.local_gpus = 0;
	assert_string_equal(render(SRC_PROCS_PER_NODE, &w), "1");
	w.local_gpus = 8;
	assert_string_equal(render(SRC_PROCS_PER_NODE, &w), "8");
}

static void test_render_node_table_sources(void **state)
{
	struct dist_world w = world_8x2();

	(void)state;
	assert_string_equal(render(SRC_NODE_ADDR, &w), "10.0.0.2");
	assert_string_equal(render(SRC_GPUS_PER_NODE, &w), "2");
	assert_string_equal(render(SRC_GPUS_TOTAL, &w), "4");
	assert_string_equal(render(SRC_HOST_LIST, &w), "10.0.0.1,10.0.0.2");
	assert_string_equal(render(SRC_NODE_GPU_LIST, &w), "10.0.0.1:2,10.0.0.2:2");
	assert_string_equal(render(SRC_NODE_SLOT_LIST, &w), "10.0.0.1:4,10.0.0.2:4");

	/* Node 0 sees its own address. */
	w.node_rank = 0;
	w.rank = 1;
	assert_string_equal(render(SRC_NODE_ADDR, &w), "10.0.0.1");
}

static void test_render_node_table_uneven_nodes(void **state)
{
	static const struct dist_node nodes[] = {
	        {"10.0.0.1", 4, 8, 0, 0},
	        {"10.0.0.2", 2, 0, 0, 1},
	        {"node-c", 3, 1, 0, 2},
	};
	struct dist_world w = world_8x2();

	(void)state;
	w.nodes = nodes;
	w.nnodes = 3;
	w.size = 9;
	w.node_rank = 2;
	assert_string_equal(render(SRC_NODE_ADDR, &w), "node-c");
	assert_string_equal(render(SRC_GPUS_PER_NODE, &w), "1");
	assert_string_equal(render(SRC_GPUS_TOTAL, &w), "9");
	assert_string_equal(render(SRC_HOST_LIST, &w), "10.0.0.1,10.0.0.2,node-c");
	assert_string_equal(render(SRC_NODE_GPU_LIST, &w), "10.0.0.1:8,10.0.0.2:0,node-c:1");
	/* Slots are the node's tasks or GPUs, whichever are more. */
	assert_string_equal(render(SRC_NODE_SLOT_LIST, &w), "10.0.0.1:8,10.0.0.2:2,node-c:3");
}

static void test_render_slot_list_without_gpus_uses_tasks(void **state)
{
	static const struct dist_node cpu_nodes[] = {
	        {"10.0.0.1", 4, 0, 0, 0},
	        {"10.0.0.2", 4, 0, 0, 1},
	};
	struct dist_world w = world_8x2();

	(void)state;
	w.nodes = cpu_nodes;
	w.local_gpus = 0;
	assert_string_equal(render(SRC_NODE_SLOT_LIST, &w), "10.0.0.1:4,10.0.0.2:4");
	assert_string_equal(render(SRC_NODE_GPU_LIST, &w), "10.0.0.1:0,10.0.0.2:0");
	assert_string_equal(render(SRC_GPUS_TOTAL, &w), "0");
	assert_string_equal(render(SRC_GPUS_PER_NODE, &w), "0");
	assert_string_equal(render(SRC_PROCS_PER_NODE, &w), "1");
}

static void test_render_single_node(void **state)
{
	static const struct dist_node one[] = {{"127.0.0.1", 2, 2, 0, 0}};
	struct dist_world w = {
	        .rank = 0,
	        .size = 2,
	        .local_rank = 0,
	        .local_size = 2,
	        .node_rank = 0,
	        .nnodes = 1,
	        .master_addr = "127.0.0.1",
	        .master_port = 12345,
	        .local_gpus = 2,
	        .nodes = one,
	};

	(void)state;
	assert_string_equal(render(SRC_HOST_LIST, &w), "127.0.0.1");
	assert_string_equal(render(SRC_NODE_GPU_LIST, &w), "127.0.0.1:2");
	assert_string_equal(render(SRC_MASTER_ADDR_PORT, &w), "127.0.0.1:12345");
}

static void test_render_node_table_missing(void **state)
{
	static const enum dist_source table_sources[] = {
	        SRC_NODE_ADDR, SRC_GPUS_PER_NODE, SRC_GPUS_TOTAL,
	        SRC_HOST_LIST, SRC_NODE_GPU_LIST, SRC_NODE_SLOT_LIST,
	};
	struct dist_world w = world_8x2();

	(void)state;
	w.nodes = NULL;
	for (size_t i = 0; i < sizeof(table_sources) / sizeof(table_sources[0]); i++) {
		struct dist_err err = {{0}};
		struct dist_buf buf = DIST_BUF_INIT;

		assert_int_equal(dist_source_render(table_sources[i], &w, &buf, &err), -1);
		dist_buf_free(&buf);
		assert_string_equal(err.msg, "the node table was not gathered for this profile");
	}
}

static void test_render_unknown_source(void **state)
{
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_buf buf = DIST_BUF_INIT;

	(void)state;
	assert_int_equal(dist_source_render((enum dist_source)99, &w, &buf, &err), -1);
	dist_buf_free(&buf);
	assert_string_equal(err.msg, "unknown value source 99");
}

/* Node lists are as long as the step needs: 250 nodes of "10.0.X.Y" are
 * well past the 4 KiB that once cut them off ("node list too long"). */
static void test_render_long_lists(void **state)
{
	struct dist_world w = world_8x2();
	struct dist_buf buf = DIST_BUF_INIT;
	struct dist_err err = {{0}};

	(void)state;
	w.nodes = many_nodes(8);
	w.nnodes = MANY_NODES;
	w.node_rank = 249;
	assert_int_equal(dist_source_render(SRC_NODE_SLOT_LIST, &w, &buf, &err), 0);
	assert_true(buf.len > 4096);
	assert_int_equal(count_char(dist_buf_str(&buf), ','), MANY_NODES - 1);
	assert_non_null(strstr(dist_buf_str(&buf), "192.168.102.149:8"));
	/* The buffer is emptied before each rendering. */
	assert_int_equal(dist_source_render(SRC_NODE_ADDR, &w, &buf, &err), 0);
	assert_string_equal(dist_buf_str(&buf), "192.168.102.149");
	dist_buf_free(&buf);
}

/* ---- dist_profiles_build_env ---- */

static void test_env_tione_counts_nodes(void **state)
{
	const struct dist_profile *list[] = {profile("tione")};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 1, &w, &env, &err), 0);
	/* RANK and WORLD_SIZE now count nodes, not tasks. */
	assert_string_equal(dist_env_get(&env, "RANK"), "1");
	assert_string_equal(dist_env_get(&env, "WORLD_SIZE"), "2");
	assert_string_equal(dist_env_get(&env, "INDEX"), "1");
	assert_string_equal(dist_env_get(&env, "NODE_LIST"), "10.0.0.1:2,10.0.0.2:2");
	assert_string_equal(dist_env_get(&env, "GPU_NUM"), "4");
	assert_string_equal(dist_env_get(&env, "GPU_NUM_PER_NODE"), "2");
	assert_string_equal(dist_env_get(&env, "NODE_IP_SLOT_LIST"), "10.0.0.1:4,10.0.0.2:4");
	/* The rest of the mode's contract is left alone. */
	assert_string_equal(dist_env_get(&env, "LOCAL_RANK"), "1");
	assert_string_equal(dist_env_get(&env, "MASTER_ADDR"), "10.0.0.1");
	assert_string_equal(dist_env_get(&env, "MASTER_PORT"), "29500");
	/* 5 from ddp, 5 new (RANK and WORLD_SIZE replaced in place). */
	assert_int_equal(env.count, 10);
	dist_env_free(&env);
}

static void test_env_modelarts(void **state)
{
	const struct dist_profile *list[] = {profile("modelarts")};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 1, &w, &env, &err), 0);
	assert_string_equal(dist_env_get(&env, "MA_NUM_HOSTS"), "2");
	assert_string_equal(dist_env_get(&env, "MA_NUM_GPUS"), "2");
	assert_string_equal(dist_env_get(&env, "MA_CURRENT_IP"), "10.0.0.2");
	assert_string_equal(dist_env_get(&env, "VC_TASK_INDEX"), "1");
	assert_string_equal(dist_env_get(&env, "VC_WORKER_HOSTS"), "10.0.0.1,10.0.0.2");
	/* modelarts leaves ddp's per-task RANK/WORLD_SIZE alone. */
	assert_string_equal(dist_env_get(&env, "RANK"), "5");
	assert_string_equal(dist_env_get(&env, "WORLD_SIZE"), "8");
	assert_int_equal(env.count, 10);
	dist_env_free(&env);
}

static void test_env_azureml_and_kubeflow(void **state)
{
	const struct dist_profile *list[] = {profile("azureml"), profile("kubeflow")};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 2, &w, &env, &err), 0);
	assert_string_equal(dist_env_get(&env, "NODE_RANK"), "1");
	assert_string_equal(dist_env_get(&env, "AZ_BATCH_MASTER_NODE"), "10.0.0.1:29500");
	assert_string_equal(dist_env_get(&env, "AZ_BATCHAI_MPI_MASTER_NODE"), "10.0.0.1");
	assert_string_equal(dist_env_get(&env, "AZ_BATCH_HOST_LIST"), "10.0.0.1,10.0.0.2");
	assert_string_equal(dist_env_get(&env, "PET_NPROC_PER_NODE"), "2");
	assert_string_equal(dist_env_get(&env, "RANK"), "5");
	assert_string_equal(dist_env_get(&env, "WORLD_SIZE"), "8");
	dist_env_free(&env);
}

static void test_env_node_table_missing(void **state)
{
	const struct dist_profile *list[] = {profile("tione")};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	w.nodes = NULL;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 1, &w, &env, &err), -1);
	assert_string_equal(err.msg, "the node table was not gathered for this profile");
	dist_env_free(&env);
}

/* TI-ONE counts nodes, Azure ML processes: with two tasks per node the
 * shipped tables disagree on RANK, and the error says so. */
static void test_env_tione_and_azureml_conflict(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("tione,azureml", list, &count, &err), 0);
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, count, &w, &env, &err), -1);
	assert_string_equal(err.msg, "--dist-compat profiles tione and azureml give RANK "
	                             "different meanings (1 vs 5); use one of them");
	dist_env_free(&env);
}

/* The other shipped profiles share no variable name and combine freely. */
static void test_env_modelarts_tione_kubeflow_together(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;
	size_t count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("modelarts,tione,kubeflow", list, &count, &err), 0);
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, count, &w, &env, &err), 0);
	assert_string_equal(dist_env_get(&env, "RANK"), "1");
	assert_string_equal(dist_env_get(&env, "WORLD_SIZE"), "2");
	assert_string_equal(dist_env_get(&env, "VC_TASK_INDEX"), "1");
	assert_string_equal(dist_env_get(&env, "PET_NPROC_PER_NODE"), "2");
	dist_env_free(&env);
}

/* Hand-built tables: one platform counting nodes, one counting tasks. */
static const struct dist_profile_var per_node_vars[] = {
        {"RANK", SRC_NODE_RANK},
        {"WORLD_SIZE", SRC_NNODES},
};
static const struct dist_profile_var per_task_vars[] = {
        {"MASTER", SRC_MASTER_ADDR},
        {"RANK", SRC_RANK},
        {"WORLD_SIZE", SRC_WORLD_SIZE},
};
static const struct dist_profile per_node = {"pernode", "Per node", per_node_vars, 2,
                                             NULL,      0,          "ddp"};
static const struct dist_profile per_task = {"pertask", "Per task", per_task_vars, 3,
                                             NULL,      0,          "ddp"};

static void test_env_conflict_names_both_profiles(void **state)
{
	const struct dist_profile *list[] = {&per_node, &per_task};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 2, &w, &env, &err), -1);
	assert_string_equal(err.msg, "--dist-compat profiles pernode and pertask give RANK "
	                             "different meanings (1 vs 5); use one of them");
	dist_env_free(&env);

	/* In the other order the first setter is named first. */
	const struct dist_profile *reversed[] = {&per_task, &per_node};

	memset(&err, 0, sizeof(err));
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(reversed, 2, &w, &env, &err), -1);
	assert_string_equal(err.msg, "--dist-compat profiles pertask and pernode give RANK "
	                             "different meanings (5 vs 1); use one of them");
	dist_env_free(&env);
}

static void test_env_conflict_on_second_variable(void **state)
{
	const struct dist_profile *list[] = {&per_node, &per_task};
	static const struct dist_node one_per_node[] = {
	        {"10.0.0.1", 1, 2, 0, 0},
	        {"10.0.0.2", 1, 2, 0, 1},
	};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	/* Ranks agree (1 == 1) but the sizes do not (2 nodes, 3 tasks). */
	w.rank = 1;
	w.size = 3;
	w.local_rank = 0;
	w.local_size = 1;
	w.nodes = one_per_node;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 2, &w, &env, &err), -1);
	assert_string_equal(err.msg, "--dist-compat profiles pernode and pertask give WORLD_SIZE "
	                             "different meanings (2 vs 3); use one of them");
	dist_env_free(&env);
}

static void test_env_agreeing_values_accepted(void **state)
{
	const struct dist_profile *list[] = {&per_node, &per_task, profile("tione")};
	static const struct dist_node one_per_node[] = {
	        {"10.0.0.1", 1, 2, 0, 0},
	        {"10.0.0.2", 1, 2, 0, 1},
	};
	struct dist_world w = {
	        .rank = 1,
	        .size = 2,
	        .local_rank = 0,
	        .local_size = 1,
	        .node_rank = 1,
	        .nnodes = 2,
	        .master_addr = "10.0.0.1",
	        .master_port = 29500,
	        .local_gpus = 2,
	        .nodes = one_per_node,
	};
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	/* One task per node: rank == node rank and size == nnodes. */
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(list, 3, &w, &env, &err), 0);
	assert_string_equal(err.msg, "");
	assert_string_equal(dist_env_get(&env, "RANK"), "1");
	assert_string_equal(dist_env_get(&env, "WORLD_SIZE"), "2");
	assert_string_equal(dist_env_get(&env, "MASTER"), "10.0.0.1");
	dist_env_free(&env);
}

static void test_env_no_profiles(void **state)
{
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	ddp_env(&env, &w);
	assert_int_equal(dist_profiles_build_env(NULL, 0, &w, &env, &err), 0);
	assert_int_equal(env.count, 5);
	assert_string_equal(dist_env_get(&env, "RANK"), "5");
	dist_env_free(&env);
}

/* ---- dist_profiles_build_args ---- */

static void test_args_modelarts_two_nodes(void **state)
{
	const struct dist_profile *list[] = {profile("modelarts")};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	char **argv = NULL;
	size_t argc = 99;

	(void)state;
	assert_int_equal(dist_profiles_build_args(list, 1, &w, &argv, &argc, &err), 0);
	assert_non_null(argv);
	assert_int_equal(argc, 6);
	assert_string_equal(argv[0], "--init_method");
	assert_string_equal(argv[1], "tcp://10.0.0.1:29500");
	assert_string_equal(argv[2], "--rank");
	assert_string_equal(argv[3], "1");
	assert_string_equal(argv[4], "--world_size");
	assert_string_equal(argv[5], "2");
	assert_null(argv[6]);
	dist_argv_free(argv);
}

static void test_args_modelarts_one_node(void **state)
{
	static const struct dist_node one[] = {{"10.0.0.1", 4, 2, 0, 0}};
	const struct dist_profile *list[] = {profile("modelarts")};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	char **argv = NULL;
	size_t argc = 99;

	(void)state;
	w.rank = 1;
	w.size = 4;
	w.node_rank = 0;
	w.nnodes = 1;
	w.nodes = one;
	assert_int_equal(dist_profiles_build_args(list, 1, &w, &argv, &argc, &err), 0);
	assert_non_null(argv);
	assert_int_equal(argc, 2);
	assert_string_equal(argv[0], "--init_method");
	assert_string_equal(argv[1], "tcp://10.0.0.1:29500");
	assert_null(argv[2]);
	dist_argv_free(argv);
}

static void test_args_profiles_without_args(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	char **argv = NULL;
	size_t argc = 99, count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("tione,azureml,kubeflow", list, &count, &err), 0);
	assert_int_equal(dist_profiles_build_args(list, count, &w, &argv, &argc, &err), 0);
	assert_non_null(argv);
	assert_int_equal(argc, 0);
	assert_null(argv[0]);
	dist_argv_free(argv);

	/* No profiles at all. */
	argv = NULL;
	argc = 99;
	assert_int_equal(dist_profiles_build_args(NULL, 0, &w, &argv, &argc, &err), 0);
	assert_non_null(argv);
	assert_int_equal(argc, 0);
	assert_null(argv[0]);
	dist_argv_free(argv);
}

static void test_args_modelarts_among_others(void **state)
{
	const struct dist_profile *list[DIST_PROFILES_MAX];
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	char **argv = NULL;
	size_t argc = 0, count = 0;

	(void)state;
	assert_int_equal(dist_profiles_parse("kubeflow,modelarts,tione", list, &count, &err), 0);
	assert_int_equal(dist_profiles_build_args(list, count, &w, &argv, &argc, &err), 0);
	assert_int_equal(argc, 6);
	assert_string_equal(argv[0], "--init_method");
	assert_string_equal(argv[5], "2");
	assert_null(argv[6]);
	dist_argv_free(argv);
}

static void test_args_render_error_frees_and_fails(void **state)
{
	static const struct dist_profile_arg args[] = {
	        {"--init", SRC_TCP_INIT_METHOD, false},
	        {"--hosts", SRC_HOST_LIST, false},
	};
	const struct dist_profile hosts = {"hosts", "Hosts", NULL, 0, args, 2, "ddp"};
	const struct dist_profile *list[] = {&hosts};
	struct dist_world w = world_8x2();
	struct dist_err err = {{0}};
	char **argv = NULL;
	size_t argc = 0;

	(void)state;
	w.nodes = NULL;
	assert_int_equal(dist_profiles_build_args(list, 1, &w, &argv, &argc, &err), -1);
	assert_string_equal(err.msg, "the node table was not gathered for this profile");
	assert_null(argv); /* not handed out on failure */
}

static void test_argv_free_null(void **state)
{
	(void)state;
	dist_argv_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_parse_single),
	        cmocka_unit_test(test_parse_several_keeps_order),
	        cmocka_unit_test(test_parse_unknown_name),
	        cmocka_unit_test(test_parse_empty_and_null),
	        cmocka_unit_test(test_parse_repeated_name),
	        cmocka_unit_test(test_parse_trailing_comma),
	        cmocka_unit_test(test_parse_leading_and_double_comma),
	        cmocka_unit_test(test_parse_prefix_and_extension_rejected),
	        cmocka_unit_test(test_choices),
	        cmocka_unit_test(test_needs_nodes),
	        cmocka_unit_test(test_needs_nodes_from_args_only),
	        cmocka_unit_test(test_render_world_sources),
	        cmocka_unit_test(test_render_world_sources_need_no_node_table),
	        cmocka_unit_test(test_render_procs_per_node_at_least_one),
	        cmocka_unit_test(test_render_node_table_sources),
	        cmocka_unit_test(test_render_node_table_uneven_nodes),
	        cmocka_unit_test(test_render_slot_list_without_gpus_uses_tasks),
	        cmocka_unit_test(test_render_single_node),
	        cmocka_unit_test(test_render_node_table_missing),
	        cmocka_unit_test(test_render_unknown_source),
	        cmocka_unit_test(test_render_long_lists),
	        cmocka_unit_test(test_env_tione_counts_nodes),
	        cmocka_unit_test(test_env_modelarts),
	        cmocka_unit_test(test_env_azureml_and_kubeflow),
	        cmocka_unit_test(test_env_node_table_missing),
	        cmocka_unit_test(test_env_tione_and_azureml_conflict),
	        cmocka_unit_test(test_env_modelarts_tione_kubeflow_together),
	        cmocka_unit_test(test_env_conflict_names_both_profiles),
	        cmocka_unit_test(test_env_conflict_on_second_variable),
	        cmocka_unit_test(test_env_agreeing_values_accepted),
	        cmocka_unit_test(test_env_no_profiles),
	        cmocka_unit_test(test_args_modelarts_two_nodes),
	        cmocka_unit_test(test_args_modelarts_one_node),
	        cmocka_unit_test(test_args_profiles_without_args),
	        cmocka_unit_test(test_args_modelarts_among_others),
	        cmocka_unit_test(test_args_render_error_frees_and_fails),
	        cmocka_unit_test(test_argv_free_null),
	};

	return cmocka_run_group_tests_name("dist_profile", tests, NULL, NULL);
}
