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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ddp_env_with_ifname),
	        cmocka_unit_test(test_ddp_env_without_ifname),
	        cmocka_unit_test(test_ddp_env_extremes),
	};

	return cmocka_run_group_tests_name("mode_ddp", tests, NULL, NULL);
}
