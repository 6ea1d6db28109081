/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/mode_ddp.c: the exact environment of --dist-mode=ddp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_mode.h"

struct expected_var {
	const char *name, *value;
};

/* Rank 5 of 8: second of two nodes, four tasks each. */
static struct dist_world world(const char *ifname)
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
	};

	snprintf(w.master_ifname, sizeof(w.master_ifname), "%s", ifname);
	return w;
}

static void assert_env_exactly(const struct dist_env *env, const struct expected_var *expected,
                               size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *value = dist_env_get(env, expected[i].name);

		if (!value)
			fail_msg("%s not set", expected[i].name);
		assert_string_equal(value, expected[i].value);
	}
	assert_int_equal(env->count, n);
}

/* Builds the ddp environment for world(IFNAME) and checks it is exactly EXPECTED. */
static void assert_ddp_env(const char *ifname, const struct expected_var *expected, size_t n)
{
	struct dist_world w = world(ifname);
	struct dist_env env;
	struct dist_err err = {{0}};

	dist_env_init(&env);
	assert_int_equal(dist_mode_ddp.build_env(&w, &env, &err), 0);
	assert_env_exactly(&env, expected, n);
	dist_env_free(&env);
}

static void test_ddp_env_with_ifname(void **state)
{
	const struct expected_var expected[] = {
	        {"MASTER_ADDR", "10.0.0.1"},
	        {"MASTER_PORT", "29500"},
	        {"RANK", "5"},
	        {"WORLD_SIZE", "8"},
	        {"LOCAL_RANK", "1"},
	        {"LOCAL_WORLD_SIZE", "4"},
	        {"NODE_RANK", "1"},
	        {"GROUP_RANK", "1"},
	        {"NNODES", "2"},
	        {"PET_NNODES", "2"},
	        {"PET_NODE_RANK", "1"},
	        {"PET_MASTER_ADDR", "10.0.0.1"},
	        {"PET_MASTER_PORT", "29500"},
	        {"GROUP_WORLD_SIZE", "2"},
	        {"ROLE_NAME", "default"},
	        {"ROLE_RANK", "5"},
	        {"ROLE_WORLD_SIZE", "8"},
	        {"TORCHELASTIC_RUN_ID", "none"},
	        {"TORCHELASTIC_RESTART_COUNT", "0"},
	        {"TORCHELASTIC_MAX_RESTARTS", "0"},
	        {"TORCHELASTIC_USE_AGENT_STORE", "False"},
	        {"TORCHELASTIC_SIGNALS_TO_HANDLE", "SIGTERM,SIGINT,SIGHUP,SIGQUIT"},
	        {"NCCL_ASYNC_ERROR_HANDLING", "1"},
	        {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"},
	        {"JAX_COORDINATOR_ADDRESS", "10.0.0.1:29500"},
	        {"GLOO_SOCKET_IFNAME", "ib0"},
	        {"NCCL_SOCKET_IFNAME", "=ib0"},
	};

	(void)state;
	assert_ddp_env("ib0", expected, sizeof(expected) / sizeof(expected[0]));
}

static void test_ddp_env_without_ifname(void **state)
{
	const struct expected_var expected[] = {
	        {"MASTER_ADDR", "10.0.0.1"},
	        {"MASTER_PORT", "29500"},
	        {"RANK", "5"},
	        {"WORLD_SIZE", "8"},
	        {"LOCAL_RANK", "1"},
	        {"LOCAL_WORLD_SIZE", "4"},
	        {"NODE_RANK", "1"},
	        {"GROUP_RANK", "1"},
	        {"NNODES", "2"},
	        {"PET_NNODES", "2"},
	        {"PET_NODE_RANK", "1"},
	        {"PET_MASTER_ADDR", "10.0.0.1"},
	        {"PET_MASTER_PORT", "29500"},
	        {"GROUP_WORLD_SIZE", "2"},
	        {"ROLE_NAME", "default"},
	        {"ROLE_RANK", "5"},
	        {"ROLE_WORLD_SIZE", "8"},
	        {"TORCHELASTIC_RUN_ID", "none"},
	        {"TORCHELASTIC_RESTART_COUNT", "0"},
	        {"TORCHELASTIC_MAX_RESTARTS", "0"},
	        {"TORCHELASTIC_USE_AGENT_STORE", "False"},
	        {"TORCHELASTIC_SIGNALS_TO_HANDLE", "SIGTERM,SIGINT,SIGHUP,SIGQUIT"},
	        {"NCCL_ASYNC_ERROR_HANDLING", "1"},
	        {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"},
	        {"JAX_COORDINATOR_ADDRESS", "10.0.0.1:29500"},
	};

	(void)state;
	/* Exactly these: no *_SOCKET_IFNAME when no interface reaches the master. */
	assert_ddp_env("", expected, sizeof(expected) / sizeof(expected[0]));
}

static void test_ddp_env_extremes(void **state)
{
	/* Largest values print in full, unsigned. */
	struct dist_world w = {
	        .rank = UINT32_MAX - 1,
	        .size = UINT32_MAX,
	        .master_addr = "node-001.cluster",
	        .master_port = 65535,
	        .master_ifname = "enp1s0f0",
	};
	struct dist_env env;
	struct dist_err err = {{0}};

	(void)state;
	dist_env_init(&env);
	assert_int_equal(dist_mode_ddp.build_env(&w, &env, &err), 0);
	assert_string_equal(dist_env_get(&env, "RANK"), "4294967294");
	assert_string_equal(dist_env_get(&env, "WORLD_SIZE"), "4294967295");
	assert_string_equal(dist_env_get(&env, "LOCAL_RANK"), "0");
	assert_string_equal(dist_env_get(&env, "MASTER_ADDR"), "node-001.cluster");
	assert_string_equal(dist_env_get(&env, "MASTER_PORT"), "65535");
	assert_string_equal(dist_env_get(&env, "PET_MASTER_PORT"), "65535");
	assert_string_equal(dist_env_get(&env, "NCCL_SOCKET_IFNAME"), "=enp1s0f0");
	dist_env_free(&env);
}

/* A requeued job's task with the step directory: torchrun's restart count
 * and run id, and @record's error file private to the step, by rank. */
static void test_ddp_env_requeued(void **state)
{
	struct dist_world w = world("ib0");
	struct dist_env env;
	struct dist_err err = {{0}};

	(void)state;
	w.restart_count = 2;
	snprintf(w.run_id, sizeof(w.run_id), "%s", "4242");
	w.step_dir = "/tmp/dist.x";
	dist_env_init(&env);
	assert_int_equal(dist_mode_ddp.build_env(&w, &env, &err), 0);
	assert_string_equal(dist_env_get(&env, "TORCHELASTIC_RESTART_COUNT"), "2");
	assert_string_equal(dist_env_get(&env, "TORCHELASTIC_MAX_RESTARTS"), "2");
	assert_string_equal(dist_env_get(&env, "TORCHELASTIC_RUN_ID"), "4242");
	assert_string_equal(dist_env_get(&env, "TORCHELASTIC_ERROR_FILE"),
	                    "/tmp/dist.x/torchelastic-error.5.json");
	dist_env_free(&env);
}

/* JAX_LOCAL_DEVICE_IDS for GPUS seen by a task that is LOCAL_RANK of
 * LOCAL_SIZE on its node; NULL: not set. */
static void assert_jax_ids(uint32_t gpus, uint32_t local_rank, uint32_t local_size,
                           const char *expected)
{
	struct dist_world w = world("ib0");
	struct dist_env env;
	struct dist_err err = {{0}};
	const char *ids;

	w.local_gpus = gpus;
	w.local_rank = local_rank;
	w.local_size = local_size;
	dist_env_init(&env);
	assert_int_equal(dist_mode_ddp.build_env(&w, &env, &err), 0);
	ids = dist_env_get(&env, "JAX_LOCAL_DEVICE_IDS");
	if (expected)
		assert_string_equal(ids, expected);
	else
		assert_null(ids);
	dist_env_free(&env);
}

static void test_jax_local_device_ids(void **state)
{
	(void)state;
	assert_jax_ids(1, 3, 4, "0");       /* --gpus-per-task=1: its own GPU is 0 */
	assert_jax_ids(4, 3, 4, "3");       /* the node's 4 GPUs, one each */
	assert_jax_ids(8, 3, 4, "3");       /* more GPUs than tasks: one each */
	assert_jax_ids(4, 0, 1, "0,1,2,3"); /* one task using the node's GPUs */
	assert_jax_ids(2, 3, 4, NULL);      /* fewer GPUs than tasks: unclear */
	assert_jax_ids(0, 3, 4, NULL);      /* no GPU */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ddp_env_with_ifname),
	        cmocka_unit_test(test_ddp_env_without_ifname),
	        cmocka_unit_test(test_ddp_env_extremes),
	        cmocka_unit_test(test_ddp_env_requeued),
	        cmocka_unit_test(test_jax_local_device_ids),
	};

	return cmocka_run_group_tests_name("mode_ddp", tests, NULL, NULL);
}
