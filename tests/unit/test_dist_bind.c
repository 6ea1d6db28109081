/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_bind.c: which GPU, CPUs and NIC each local task gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist_bind.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Plans task RANK and checks its GPU, its CPUs (exactly, in order) and its NIC. */
static void expect_plan(const struct dist_bind_input *in, uint32_t rank, int32_t gpu,
                        const uint32_t *cpus, size_t ncpus, const char *nic)
{
	struct dist_bind_plan plan;
	struct dist_err err = {{0}};

	assert_int_equal(dist_bind_plan_for(in, rank, &plan, &err), 0);
	assert_int_equal(plan.gpu, gpu);
	assert_int_equal(plan.ncpus, ncpus);
	assert_non_null(plan.cpus);
	for (size_t i = 0; i < ncpus; i++)
		assert_int_equal(plan.cpus[i], cpus[i]);
	assert_string_equal(plan.nic, nic);
	dist_bind_plan_free(&plan);
	assert_null(plan.cpus);
	assert_int_equal(plan.ncpus, 0);
}

/* --- no GPUs: all allowed CPUs split between all the node's tasks --- */

static void test_no_gpu_four_tasks_on_eight_cpus(void **state)
{
	static const uint32_t allowed[] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct dist_bind_input in = {allowed, N(allowed), 0, NULL, 4, false, false, false};

	(void)state;
	expect_plan(&in, 0, -1, (const uint32_t[]){0, 1}, 2, "");
	expect_plan(&in, 1, -1, (const uint32_t[]){2, 3}, 2, "");
	expect_plan(&in, 2, -1, (const uint32_t[]){4, 5}, 2, "");
	expect_plan(&in, 3, -1, (const uint32_t[]){6, 7}, 2, "");
}

static void test_no_gpu_uneven_split_first_tasks_get_extra(void **state)
{
	static const uint32_t allowed[] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct dist_bind_input in = {allowed, N(allowed), 0, NULL, 3, false, false, false};

	(void)state;
	expect_plan(&in, 0, -1, (const uint32_t[]){0, 1, 2}, 3, "");
	expect_plan(&in, 1, -1, (const uint32_t[]){3, 4, 5}, 3, "");
	expect_plan(&in, 2, -1, (const uint32_t[]){6, 7}, 2, "");
}

/* Disjoint shares that cover every allowed CPU, for many task counts. */
static void test_no_gpu_shares_disjoint_and_covering(void **state)
{
	uint32_t allowed[13];

	(void)state;
	for (uint32_t i = 0; i < N(allowed); i++)
		allowed[i] = 100 + i;
	for (uint32_t tasks = 1; tasks <= N(allowed); tasks++) {
		struct dist_bind_input in = {allowed, N(allowed), 0,     NULL,
		                             tasks,   false,      false, false};
		uint32_t next = 100;

		for (uint32_t r = 0; r < tasks; r++) {
			struct dist_bind_plan plan;
			struct dist_err err = {{0}};
			size_t want = N(allowed) / tasks + (r < N(allowed) % tasks ? 1 : 0);

			assert_int_equal(dist_bind_plan_for(&in, r, &plan, &err), 0);
			assert_int_equal(plan.ncpus, want);
			for (size_t i = 0; i < plan.ncpus; i++)
				assert_int_equal(plan.cpus[i], next++); /* contiguous, in order */
			dist_bind_plan_free(&plan);
		}
		assert_int_equal(next, 100 + N(allowed)); /* all covered */
	}
}

/* Topology order keeps a core's hyperthreads together; the output is ascending. */
static void test_no_gpu_hyperthread_pairs_stay_together_sorted(void **state)
{
	static const uint32_t allowed[] = {0, 16, 1, 17, 2, 18, 3, 19};
	struct dist_bind_input in = {allowed, N(allowed), 0, NULL, 2, false, false, false};

	(void)state;
	expect_plan(&in, 0, -1, (const uint32_t[]){0, 1, 16, 17}, 4, "");
	expect_plan(&in, 1, -1, (const uint32_t[]){2, 3, 18, 19}, 4, "");
	in.local_size = 4;
	expect_plan(&in, 0, -1, (const uint32_t[]){0, 16}, 2, "");
	expect_plan(&in, 1, -1, (const uint32_t[]){1, 17}, 2, "");
	expect_plan(&in, 2, -1, (const uint32_t[]){2, 18}, 2, "");
	expect_plan(&in, 3, -1, (const uint32_t[]){3, 19}, 2, "");
}

static void test_single_task_gets_all_allowed(void **state)
{
	static const uint32_t allowed[] = {5, 4, 7, 6};
	struct dist_bind_input in = {allowed, N(allowed), 0, NULL, 1, false, false, false};

	(void)state;
	expect_plan(&in, 0, -1, (const uint32_t[]){4, 5, 6, 7}, 4, "");
}

static void test_more_tasks_than_cpus_share_in_turn(void **state)
{
	static const uint32_t allowed[] = {0, 1};
	struct dist_bind_input in = {allowed, N(allowed), 0, NULL, 4, false, false, false};

	(void)state;
	expect_plan(&in, 0, -1, (const uint32_t[]){0}, 1, "");
	expect_plan(&in, 1, -1, (const uint32_t[]){1}, 1, "");
	expect_plan(&in, 2, -1, (const uint32_t[]){0}, 1, "");
	expect_plan(&in, 3, -1, (const uint32_t[]){1}, 1, "");
}

/* --- GPUs with localities --- */

static const uint32_t cpus_a[] = {0, 1, 2, 3};
static const uint32_t cpus_b[] = {4, 5, 6, 7};
static const uint32_t all8[] = {0, 1, 2, 3, 4, 5, 6, 7};

static void test_gpus_two_localities_four_tasks(void **state)
{
	const struct dist_locality loc[] = {
	        {cpus_a, N(cpus_a), "mlx5_0"},
	        {cpus_b, N(cpus_b), "mlx5_1"},
	};
	struct dist_bind_input in = {all8, N(all8), 2, loc, 4, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1}, 2, "mlx5_0");
	expect_plan(&in, 1, 1, (const uint32_t[]){4, 5}, 2, "mlx5_1");
	expect_plan(&in, 2, 0, (const uint32_t[]){2, 3}, 2, "mlx5_0");
	expect_plan(&in, 3, 1, (const uint32_t[]){6, 7}, 2, "mlx5_1");
}

static void test_gpus_two_localities_one_task_each(void **state)
{
	const struct dist_locality loc[] = {
	        {cpus_a, N(cpus_a), "mlx5_0"},
	        {cpus_b, N(cpus_b), "mlx5_1"},
	};
	struct dist_bind_input in = {all8, N(all8), 2, loc, 2, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1, 2, 3}, 4, "mlx5_0");
	expect_plan(&in, 1, 1, (const uint32_t[]){4, 5, 6, 7}, 4, "mlx5_1");
}

/* Two GPUs near the same CPUs form one group (distinct arrays, equal content). */
static void test_gpus_same_locality_is_one_group(void **state)
{
	static const uint32_t copy_a[] = {0, 1, 2, 3};
	const struct dist_locality loc[] = {
	        {cpus_a, N(cpus_a), "mlx5_0"},
	        {copy_a, N(copy_a), "mlx5_0"},
	};
	struct dist_bind_input in = {all8, N(all8), 2, loc, 2, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1}, 2, "mlx5_0");
	expect_plan(&in, 1, 1, (const uint32_t[]){2, 3}, 2, "mlx5_0");
}

/* Four GPUs on two packages, eight tasks: each package's CPUs split four ways. */
static void test_gpus_four_gpus_two_packages_eight_tasks(void **state)
{
	const struct dist_locality loc[] = {
	        {cpus_a, N(cpus_a), "mlx5_0"},
	        {cpus_a, N(cpus_a), "mlx5_0"},
	        {cpus_b, N(cpus_b), "mlx5_1"},
	        {cpus_b, N(cpus_b), "mlx5_1"},
	};
	struct dist_bind_input in = {all8, N(all8), 4, loc, 8, false, false, false};

	(void)state;
	/* group A: ranks 0,1,4,5; group B: ranks 2,3,6,7 */
	expect_plan(&in, 0, 0, (const uint32_t[]){0}, 1, "mlx5_0");
	expect_plan(&in, 1, 1, (const uint32_t[]){1}, 1, "mlx5_0");
	expect_plan(&in, 2, 2, (const uint32_t[]){4}, 1, "mlx5_1");
	expect_plan(&in, 3, 3, (const uint32_t[]){5}, 1, "mlx5_1");
	expect_plan(&in, 4, 0, (const uint32_t[]){2}, 1, "mlx5_0");
	expect_plan(&in, 5, 1, (const uint32_t[]){3}, 1, "mlx5_0");
	expect_plan(&in, 6, 2, (const uint32_t[]){6}, 1, "mlx5_1");
	expect_plan(&in, 7, 3, (const uint32_t[]){7}, 1, "mlx5_1");
}

static void test_gpus_locality_restricted_to_allowed(void **state)
{
	static const uint32_t allowed[] = {2, 3, 4, 5};
	const struct dist_locality loc[] = {{cpus_a, N(cpus_a), "mlx5_0"}};
	struct dist_bind_input in = {allowed, N(allowed), 1, loc, 1, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){2, 3}, 2, "mlx5_0");
	in.local_size = 2; /* both tasks on GPU 0: pool {2,3} split */
	expect_plan(&in, 0, 0, (const uint32_t[]){2}, 1, "mlx5_0");
	expect_plan(&in, 1, 0, (const uint32_t[]){3}, 1, "mlx5_0");
	in.local_size = 3; /* more tasks than pool CPUs: in turn, never outside the pool */
	expect_plan(&in, 0, 0, (const uint32_t[]){2}, 1, "mlx5_0");
	expect_plan(&in, 1, 0, (const uint32_t[]){3}, 1, "mlx5_0");
	expect_plan(&in, 2, 0, (const uint32_t[]){2}, 1, "mlx5_0");
}

static void test_gpus_locality_without_allowed_cpu_falls_back(void **state)
{
	static const uint32_t allowed[] = {4, 5, 6, 7};
	const struct dist_locality loc[] = {{cpus_a, N(cpus_a), "mlx5_0"}};
	struct dist_bind_input in = {allowed, N(allowed), 1, loc, 1, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){4, 5, 6, 7}, 4, "mlx5_0");
	in.local_size = 2;
	expect_plan(&in, 0, 0, (const uint32_t[]){4, 5}, 2, "mlx5_0");
	expect_plan(&in, 1, 0, (const uint32_t[]){6, 7}, 2, "mlx5_0");
}

static void test_gpus_empty_nic(void **state)
{
	const struct dist_locality loc[] = {{cpus_a, N(cpus_a), ""}};
	struct dist_bind_input in = {all8, N(all8), 1, loc, 1, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1, 2, 3}, 4, "");
}

/* The topology does not show the GPUs: round-robin GPUs, all allowed CPUs split, no NIC. */
static void test_gpus_without_localities(void **state)
{
	struct dist_bind_input in = {all8, N(all8), 2, NULL, 4, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1}, 2, "");
	expect_plan(&in, 1, 1, (const uint32_t[]){2, 3}, 2, "");
	expect_plan(&in, 2, 0, (const uint32_t[]){4, 5}, 2, "");
	expect_plan(&in, 3, 1, (const uint32_t[]){6, 7}, 2, "");
}

static void test_fewer_tasks_than_gpus(void **state)
{
	struct dist_bind_input in = {all8, N(all8), 4, NULL, 2, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1, 2, 3}, 4, "");
	expect_plan(&in, 1, 1, (const uint32_t[]){4, 5, 6, 7}, 4, "");
}

static void test_more_tasks_than_gpus_wrap(void **state)
{
	struct dist_bind_input in = {all8, N(all8), 3, NULL, 8, false, false, false};

	(void)state;
	for (uint32_t r = 0; r < 8; r++)
		expect_plan(&in, r, (int32_t)(r % 3), (const uint32_t[]){r}, 1, "");
}

static void test_no_cpu_allowed(void **state)
{
	static const uint32_t allowed[] = {0};
	struct dist_bind_input in = {allowed, 0, 0, NULL, 2, false, false, false};
	struct dist_bind_plan plan;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_bind_plan_for(&in, 0, &plan, &err), -1);
	assert_string_equal(err.msg, "this task may use no CPU");
	assert_null(plan.cpus);
	assert_int_equal(plan.ncpus, 0);
	dist_bind_plan_free(&plan);

	const struct dist_locality loc[] = {{cpus_a, N(cpus_a), "mlx5_0"}};
	struct dist_bind_input with_gpu = {allowed, 0, 1, loc, 1, false, false, false};

	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_bind_plan_for(&with_gpu, 0, &plan, &err), -1);
	assert_string_equal(err.msg, "this task may use no CPU");
	dist_bind_plan_free(&plan);
}

/* --- dist_cpu_list_format --- */

static void test_format_empty_and_single(void **state)
{
	char buf[64];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(dist_cpu_list_format(NULL, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(dist_cpu_list_format((const uint32_t[]){3}, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "3");
	assert_int_equal(dist_cpu_list_format((const uint32_t[]){4, 5}, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4-5");
	assert_int_equal(dist_cpu_list_format((const uint32_t[]){4, 6}, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4,6");
}

static void test_format_ranges(void **state)
{
	static const uint32_t cpus[] = {0, 1, 2, 3, 8, 10, 11};
	static const uint32_t big[] = {126, 127, 128, 4294967295u};
	char buf[64];

	(void)state;
	assert_int_equal(dist_cpu_list_format(cpus, N(cpus), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3,8,10-11");
	assert_int_equal(dist_cpu_list_format(big, N(big), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "126-128,4294967295");
}

static void test_format_too_small(void **state)
{
	static const uint32_t cpus[] = {0, 1, 2, 3, 8, 10, 11};
	char buf[64];

	(void)state;
	/* "0-3,8,10-11" is 11 characters: needs 12 bytes */
	assert_int_equal(dist_cpu_list_format(cpus, N(cpus), buf, 12), 0);
	assert_string_equal(buf, "0-3,8,10-11");
	assert_int_equal(dist_cpu_list_format(cpus, N(cpus), buf, 11), -1);
	assert_int_equal(dist_cpu_list_format(cpus, N(cpus), buf, 5), -1);
	assert_int_equal(dist_cpu_list_format(cpus, N(cpus), buf, 1), -1);
	assert_int_equal(dist_cpu_list_format((const uint32_t[]){3}, 1, buf, 1), -1);
	assert_int_equal(dist_cpu_list_format((const uint32_t[]){3}, 1, buf, 2), 0);
	assert_string_equal(buf, "3");
}

/* One GPU with no allowed CPU near it: keeping the other GPU's locality
 * would overlap the tasks falling back to all allowed CPUs, so every task
 * draws from the allowed CPUs; NICs still follow the GPUs. */
static void test_unusable_locality_ignores_all_localities(void **state)
{
	static const uint32_t allowed_b[] = {4, 5, 6, 7};
	const struct dist_locality loc[] = {
	        {cpus_a, N(cpus_a), "mlx5_0"},
	        {cpus_b, N(cpus_b), "mlx5_1"},
	};
	struct dist_bind_input in = {allowed_b, N(allowed_b), 2, loc, 4, false, false, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){4}, 1, "mlx5_0");
	expect_plan(&in, 1, 1, (const uint32_t[]){5}, 1, "mlx5_1");
	expect_plan(&in, 2, 0, (const uint32_t[]){6}, 1, "mlx5_0");
	expect_plan(&in, 3, 1, (const uint32_t[]){7}, 1, "mlx5_1");
}

static void test_cpu_list_format_zero_length_buffer(void **state)
{
	char buf[1] = {'x'};

	(void)state;
	assert_int_equal(dist_cpu_list_format((const uint32_t[]){1}, 1, buf, 0), -1);
	assert_int_equal(buf[0], 'x');
}

/* Slurm already gave each task its own CPUs: they are kept whole. */
static void test_task_bound_keeps_all_its_cpus(void **state)
{
	static const uint32_t mine[] = {4, 5, 6, 7};
	struct dist_bind_input in = {mine, N(mine), 0, NULL, 2, true, false, false};

	(void)state;
	expect_plan(&in, 0, -1, (const uint32_t[]){4, 5, 6, 7}, 4, "");
	expect_plan(&in, 1, -1, (const uint32_t[]){4, 5, 6, 7}, 4, "");
}

/* The user asked Slurm to bind (--cpu-bind): each task keeps every CPU
 * Slurm left it, even those far from its GPU, and none is shared out. */
static void test_keep_cpus_keeps_every_allowed_cpu(void **state)
{
	static const uint32_t mine[] = {0, 1, 8, 9};
	static const uint32_t near0[] = {0, 1, 2, 3};
	static const uint32_t near1[] = {8, 9, 10, 11};
	static const struct dist_locality gpus[] = {{near0, 4, "mlx5_0"}, {near1, 4, "mlx5_1"}};
	struct dist_bind_input in = {mine, N(mine), 2, gpus, 2, false, true, false};

	(void)state;
	expect_plan(&in, 0, 0, (const uint32_t[]){0, 1, 8, 9}, 4, "mlx5_0");
	expect_plan(&in, 1, 1, (const uint32_t[]){0, 1, 8, 9}, 4, "mlx5_1");
}

/* What srun left in SLURM_CPU_BIND/SLURM_GPU_BIND: a binding, or only
 * the verbosity. */
static void test_slurm_bind_given(void **state)
{
	(void)state;
	assert_true(dist_slurm_bind_given("quiet,cores"));
	assert_true(dist_slurm_bind_given("verbose,mask_cpu:0x1,0x2"));
	assert_true(dist_slurm_bind_given("none"));
	assert_true(dist_slurm_bind_given("closest"));
	assert_true(dist_slurm_bind_given("single:1"));
	assert_false(dist_slurm_bind_given("quiet"));
	assert_false(dist_slurm_bind_given("verbose"));
	assert_false(dist_slurm_bind_given("quiet,"));
	assert_false(dist_slurm_bind_given(""));
	assert_false(dist_slurm_bind_given(NULL));
	assert_false(dist_slurm_bind_given(",,"));
}

/* Slurm gave each task its GPUs: the task's GPU is the first of its own
 * list; the CPUs near it are still shared out by local rank, so that tasks
 * Slurm did not bind to CPUs do not overlap. */
static void test_gpu_first_takes_first_gpu_and_its_cpus(void **state)
{
	static const uint32_t allowed[] = {0, 1, 2, 3, 8, 9, 10, 11};
	static const uint32_t near0[] = {8, 9, 10, 11};
	static const uint32_t near1[] = {0, 1, 2, 3};
	static const struct dist_locality gpus[] = {{near0, 4, "mlx5_1"}, {near1, 4, "mlx5_0"}};
	struct dist_bind_input in = {allowed, N(allowed), 2, gpus, 4, false, false, true};

	(void)state;
	for (uint32_t r = 0; r < 4; r++)
		expect_plan(&in, r, 0, (const uint32_t[]){8 + r}, 1, "mlx5_1");
}

static void test_slurm_gpu_bind(void **state)
{
	const char *what = NULL;
	size_t len = 0;

	(void)state;
	assert_true(dist_slurm_gpu_bind("gpu:single:1", &what, &len));
	assert_int_equal(len, 8);
	assert_memory_equal(what, "single:1", 8);
	assert_true(dist_slurm_gpu_bind("gres/gpu:closest", &what, &len));
	assert_int_equal(len, 7);
	assert_memory_equal(what, "closest", 7);
	assert_true(dist_slurm_gpu_bind("gres/nic:closest;gpu:verbose,map_gpu:1,0", &what, &len));
	assert_int_equal(len, 19);
	assert_memory_equal(what, "verbose,map_gpu:1,0", 19);
	assert_false(dist_slurm_gpu_bind("gres/nic:closest", &what, &len));
	assert_false(dist_slurm_gpu_bind("gpu:", &what, &len));
	assert_false(dist_slurm_gpu_bind("gp", &what, &len));
	assert_false(dist_slurm_gpu_bind("", &what, &len));
	assert_false(dist_slurm_gpu_bind(NULL, &what, &len));
}

/* The node's plan carries CPU lists: what the format writes, the parse
 * reads back, and anything else is refused. */
static void test_cpu_list_round_trip(void **state)
{
	static const uint32_t cpus[] = {0, 1, 2, 3, 8, 10, 11, 4000};
	uint32_t *back = NULL;
	size_t n = 0;
	struct dist_err err = {{0}};
	char *text = dist_cpu_list_alloc(cpus, 8);

	(void)state;
	assert_non_null(text);
	assert_string_equal(text, "0-3,8,10-11,4000");
	assert_int_equal(dist_cpu_list_parse(text, &back, &n, &err), 0);
	assert_int_equal(n, 8);
	assert_memory_equal(back, cpus, sizeof(cpus));
	free(back);
	free(text);
	assert_int_equal(dist_cpu_list_parse("7", &back, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(back[0], 7);
	free(back);
}

static void test_cpu_list_parse_refuses(void **state)
{
	static const char *const bad[] = {"",   "-",   "1-",  "3-1", "1,,2", "1,",
	                                  ",1", "2,1", "1,1", "a",   "1 2",  "0-4294967295"};
	uint32_t *cpus = NULL;
	size_t n = 0;
	struct dist_err err = {{0}};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (dist_cpu_list_parse(bad[i], &cpus, &n, &err) != -1)
			fail_msg("'%s' was accepted", bad[i]);
	assert_int_equal(dist_cpu_list_parse(NULL, &cpus, &n, &err), -1);
	assert_non_null(strstr(err.msg, "malformed CPU list"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_task_bound_keeps_all_its_cpus),
	        cmocka_unit_test(test_keep_cpus_keeps_every_allowed_cpu),
	        cmocka_unit_test(test_slurm_bind_given),
	        cmocka_unit_test(test_gpu_first_takes_first_gpu_and_its_cpus),
	        cmocka_unit_test(test_slurm_gpu_bind),
	        cmocka_unit_test(test_unusable_locality_ignores_all_localities),
	        cmocka_unit_test(test_cpu_list_format_zero_length_buffer),
	        cmocka_unit_test(test_no_gpu_four_tasks_on_eight_cpus),
	        cmocka_unit_test(test_no_gpu_uneven_split_first_tasks_get_extra),
	        cmocka_unit_test(test_no_gpu_shares_disjoint_and_covering),
	        cmocka_unit_test(test_no_gpu_hyperthread_pairs_stay_together_sorted),
	        cmocka_unit_test(test_single_task_gets_all_allowed),
	        cmocka_unit_test(test_more_tasks_than_cpus_share_in_turn),
	        cmocka_unit_test(test_gpus_two_localities_four_tasks),
	        cmocka_unit_test(test_gpus_two_localities_one_task_each),
	        cmocka_unit_test(test_gpus_same_locality_is_one_group),
	        cmocka_unit_test(test_gpus_four_gpus_two_packages_eight_tasks),
	        cmocka_unit_test(test_gpus_locality_restricted_to_allowed),
	        cmocka_unit_test(test_gpus_locality_without_allowed_cpu_falls_back),
	        cmocka_unit_test(test_gpus_empty_nic),
	        cmocka_unit_test(test_gpus_without_localities),
	        cmocka_unit_test(test_fewer_tasks_than_gpus),
	        cmocka_unit_test(test_more_tasks_than_gpus_wrap),
	        cmocka_unit_test(test_no_cpu_allowed),
	        cmocka_unit_test(test_format_empty_and_single),
	        cmocka_unit_test(test_format_ranges),
	        cmocka_unit_test(test_format_too_small),
	        cmocka_unit_test(test_cpu_list_round_trip),
	        cmocka_unit_test(test_cpu_list_parse_refuses),
	};

	return cmocka_run_group_tests_name("dist_bind", tests, NULL, NULL);
}
