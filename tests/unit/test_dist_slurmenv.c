/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_slurmenv.c: SLURM_STEP_TASKS_PER_NODE and 32-bit numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_slurmenv.h"

#define MAX_NODES 8

static void assert_counts(const char *text, const uint32_t *expected, size_t nexpected)
{
	uint32_t counts[MAX_NODES];
	struct dist_err err = {{0}};
	size_t n = 99;

	assert_int_equal(dist_tasks_per_node_parse(text, counts, MAX_NODES, &n, &err), 0);
	assert_int_equal(n, nexpected);
	for (size_t i = 0; i < nexpected; i++)
		assert_int_equal(counts[i], expected[i]);
}

static void test_tasks_per_node_repeat(void **state)
{
	const uint32_t expected[] = {2, 2, 2, 1};

	(void)state;
	assert_counts("2(x3),1", expected, 4);
}

/* What the launcher form hands mpirun (mode_mpi.c) reads back as given. */
static void assert_formats(const uint32_t *counts, size_t n, const char *expected)
{
	struct dist_buf out = DIST_BUF_INIT;

	dist_tasks_per_node_format(counts, n, &out);
	assert_string_equal(dist_buf_str(&out), expected);
	assert_counts(expected, counts, n);
	dist_buf_free(&out);
}

static void test_tasks_per_node_format(void **state)
{
	const uint32_t even[] = {8, 8, 8}, mixed[] = {4, 1, 2, 2}, runs[] = {2, 2, 1, 1, 1, 2};

	(void)state;
	assert_formats(even, 3, "8(x3)");
	assert_formats(even, 1, "8");
	assert_formats(mixed, 4, "4,1,2(x2)");
	assert_formats(runs, 6, "2(x2),1(x3),2");
}

static void test_tasks_per_node_single(void **state)
{
	const uint32_t expected[] = {4};

	(void)state;
	assert_counts("4", expected, 1);
}

static void test_tasks_per_node_list(void **state)
{
	const uint32_t expected[] = {1, 2, 3};

	(void)state;
	assert_counts("1,2,3", expected, 3);
}

static void test_tasks_per_node_mixed(void **state)
{
	const uint32_t expected[] = {8, 4, 4, 16};

	(void)state;
	assert_counts("8,4(x2),16(x1)", expected, 4);
}

static void test_tasks_per_node_fills_max_exactly(void **state)
{
	const uint32_t expected[MAX_NODES] = {3, 3, 3, 3, 3, 3, 3, 3};

	(void)state;
	assert_counts("3(x8)", expected, MAX_NODES);
}

static void assert_malformed(const char *text)
{
	uint32_t counts[MAX_NODES];
	struct dist_err err = {{0}};
	char expected[sizeof(err.msg)];
	size_t n;

	assert_int_equal(dist_tasks_per_node_parse(text, counts, MAX_NODES, &n, &err), -1);
	snprintf(expected, sizeof(expected), "malformed SLURM_STEP_TASKS_PER_NODE '%s'", text);
	assert_string_equal(err.msg, expected);
}

static void test_tasks_per_node_malformed(void **state)
{
	(void)state;
	assert_malformed("x");
	assert_malformed("2(x)");
	assert_malformed("2(x0)");
	assert_malformed("2,");
	assert_malformed(",2");
	assert_malformed("2(x3");
	assert_malformed("-1");
	assert_malformed("2,,1");
	assert_malformed("2(y3)");
	assert_malformed("2(x3)1");
	assert_malformed("2 ,1");
	assert_malformed("2(x-1)");
	assert_malformed("4294967296"); /* one more than UINT32_MAX */
}

static void test_tasks_per_node_empty(void **state)
{
	uint32_t counts[MAX_NODES];
	struct dist_err err = {{0}};
	size_t n = 99;

	(void)state;
	assert_int_equal(dist_tasks_per_node_parse("", counts, MAX_NODES, &n, &err), -1);
	assert_string_equal(err.msg, "empty SLURM_STEP_TASKS_PER_NODE");
	assert_int_equal(n, 0);
}

static void assert_too_many(const char *text, size_t max)
{
	uint32_t counts[MAX_NODES + 1];
	struct dist_err err = {{0}};
	char expected[sizeof(err.msg)];
	size_t n;

	/* The guard slot past MAX must stay untouched. */
	counts[max] = 0xdeadbeef;
	assert_int_equal(dist_tasks_per_node_parse(text, counts, max, &n, &err), -1);
	assert_int_equal(counts[max], 0xdeadbeef);
	snprintf(expected, sizeof(expected),
	         "SLURM_STEP_TASKS_PER_NODE '%s' lists more than %zu nodes", text, max);
	assert_string_equal(err.msg, expected);
}

static void test_tasks_per_node_overflows_max(void **state)
{
	(void)state;
	assert_too_many("2(x3)", 2);
	assert_too_many("1,1,1", 2);
	assert_too_many("1,1(x2)", 2);
	assert_too_many("1(x9)", MAX_NODES);
	assert_too_many("1(x18446744073709551615)", MAX_NODES);
}

static void test_parse_u32(void **state)
{
	uint32_t v = 7;

	(void)state;
	assert_int_equal(dist_parse_u32("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(dist_parse_u32("4294967295", &v), 0);
	assert_int_equal(v, UINT32_MAX);
	v = 7;
	assert_int_equal(dist_parse_u32("4294967296", &v), -1);
	assert_int_equal(dist_parse_u32("", &v), -1);
	assert_int_equal(dist_parse_u32(NULL, &v), -1);
	assert_int_equal(dist_parse_u32("-1", &v), -1);
	assert_int_equal(dist_parse_u32("+1", &v), -1);
	assert_int_equal(dist_parse_u32(" 1", &v), -1);
	assert_int_equal(dist_parse_u32("12a", &v), -1);
	assert_int_equal(dist_parse_u32("99999999999999999999999", &v), -1);
	assert_int_equal(v, 7);
}

static void test_parse_u32_prefix(void **state)
{
	uint32_t v = 0;
	char *end;

	(void)state;
	assert_int_equal(dist_parse_u32_prefix("12 eth0=1.2.3.4/8", &v, &end), 0);
	assert_int_equal(v, 12);
	assert_string_equal(end, " eth0=1.2.3.4/8");
	assert_int_equal(dist_parse_u32_prefix("x1", &v, &end), -1);
	assert_int_equal(dist_parse_u32_prefix("4294967296 ", &v, &end), -1);
}

static void test_count_list_items(void **state)
{
	(void)state;
	assert_int_equal(dist_count_list_items(NULL), 0);
	assert_int_equal(dist_count_list_items(""), 0);
	assert_int_equal(dist_count_list_items("NoDevFiles"), 0);
	assert_int_equal(dist_count_list_items("0"), 1);
	assert_int_equal(dist_count_list_items("0,1,3"), 3);
	assert_int_equal(dist_count_list_items("GPU-5e1a,GPU-77b2"), 2);
	assert_int_equal(dist_count_list_items("0,,2,"), 2);
}

static void test_multi_prog_argv_detected(void **state)
{
	char *conf[] = {"mp.conf", "# two programs\n\n0-1 env\n* hostname\n", NULL};
	char *star[] = {"mp.conf", "  * hostname\n", NULL};

	(void)state;
	assert_true(dist_is_multi_prog_argv(2, conf));
	assert_true(dist_is_multi_prog_argv(2, star));
}

static void test_ordinary_argv_not_multi_prog(void **state)
{
	char *one[] = {"python3", NULL};
	char *two[] = {"python3", "train.py", NULL};
	char *text[] = {"echo", "hello\nworld", NULL};
	char *comments[] = {"prog", "# only\n# comments\n", NULL};
	char *three[] = {"mp.conf", "0 env\n", "extra", NULL};

	(void)state;
	assert_false(dist_is_multi_prog_argv(1, one));
	assert_false(dist_is_multi_prog_argv(2, two));
	assert_false(dist_is_multi_prog_argv(2, text));
	assert_false(dist_is_multi_prog_argv(2, comments));
	assert_false(dist_is_multi_prog_argv(3, three));
	assert_false(dist_is_multi_prog_argv(0, NULL));
}

/* Rank 0 on Slurm's last node (--distribution=arbitrary -w tcn3,tcn1,...):
 * that node comes first, then the others by their lowest rank. */
static void test_nodes_by_leader(void **state)
{
	uint32_t leaders[] = {1, 3, 0}, order[3], one = 7, single[1];

	(void)state;
	assert_int_equal(dist_nodes_by_leader(leaders, 3, order), 0);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 1);
	assert_int_equal(dist_nodes_by_leader(&one, 1, single), 0);
	assert_int_equal(single[0], 0);
	leaders[2] = 3;
	assert_int_equal(dist_nodes_by_leader(leaders, 3, order), -1);
	assert_int_equal(dist_nodes_by_leader(leaders, 0, order), -1);
}

static void test_gpu_indexes(void **state)
{
	uint32_t idx[4];

	(void)state;
	assert_int_equal(dist_gpu_indexes_parse("0,1,3", idx, 3), 0);
	assert_int_equal(idx[2], 3);
	assert_int_equal(dist_gpu_indexes_parse("2,,5", idx, 2), 0);
	assert_int_equal(idx[1], 5);
	assert_int_equal(dist_gpu_indexes_parse("", idx, 0), 0);
	assert_int_equal(dist_gpu_indexes_parse("0,1", idx, 3), -1);
	assert_int_equal(dist_gpu_indexes_parse("GPU-5f3e,1", idx, 2), -1);
	assert_int_equal(dist_gpu_indexes_parse("1x,2", idx, 2), -1);
	assert_int_equal(dist_gpu_indexes_parse("NoDevFiles", idx, 1), -1);
	assert_int_equal(dist_gpu_indexes_parse("99999999999", idx, 1), -1);
}

static void test_step_ids_from_slurm(void **state)
{
	struct dist_err err = {{0}};
	uint32_t job = 1, step = 1;

	(void)state;
	assert_int_equal(dist_step_ids_parse("4242", "3", "slurm.pmix.4242.3", &job, &step, &err),
	                 0);
	assert_int_equal(job, 4242);
	assert_int_equal(step, 3);
	assert_int_equal(dist_step_ids_parse("7", "4294967291", NULL, &job, &step, &err), 0);
	assert_int_equal(job, 7);
	assert_int_equal(step, 4294967291u); /* the batch step */
}

/* Outside Slurm every task of a launch agrees on the ids: the job's is a
 * hash (FNV-1a) of the PMIx namespace, the step's 0; each id falls back
 * alone, and the error names the first missing one. */
static void test_step_ids_fallback(void **state)
{
	struct dist_err err = {{0}};
	uint32_t job = 1, step = 1;

	(void)state;
	assert_int_equal(dist_step_ids_parse(NULL, NULL, "prterun-host-123@1", &job, &step, &err),
	                 -1);
	assert_string_equal(err.msg, "SLURM_JOB_ID is not set; is this a Slurm step?");
	assert_int_equal(job, 0x104ce9c4u);
	assert_int_equal(step, 0);
	assert_int_equal(dist_step_ids_parse(NULL, NULL, NULL, &job, &step, &err), -1);
	assert_int_equal(job, 2166136261u); /* the hash of nothing */
	assert_int_equal(dist_step_ids_parse("12x", "5", "", &job, &step, &err), -1);
	assert_string_equal(err.msg, "SLURM_JOB_ID='12x' is not a number");
	assert_int_equal(job, 2166136261u);
	assert_int_equal(step, 5);
	assert_int_equal(dist_step_ids_parse("12", NULL, "ns", &job, &step, &err), -1);
	assert_string_equal(err.msg, "SLURM_STEP_ID is not set; is this a Slurm step?");
	assert_int_equal(job, 12);
	assert_int_equal(step, 0);
	assert_int_equal(dist_step_ids_parse("12", "-1", NULL, &job, &step, NULL), -1);
	assert_int_equal(step, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_parse_u32_prefix),
	        cmocka_unit_test(test_count_list_items),
	        cmocka_unit_test(test_multi_prog_argv_detected),
	        cmocka_unit_test(test_ordinary_argv_not_multi_prog),
	        cmocka_unit_test(test_tasks_per_node_repeat),
	        cmocka_unit_test(test_tasks_per_node_single),
	        cmocka_unit_test(test_tasks_per_node_list),
	        cmocka_unit_test(test_tasks_per_node_mixed),
	        cmocka_unit_test(test_tasks_per_node_fills_max_exactly),
	        cmocka_unit_test(test_tasks_per_node_malformed),
	        cmocka_unit_test(test_tasks_per_node_empty),
	        cmocka_unit_test(test_tasks_per_node_overflows_max),
	        cmocka_unit_test(test_tasks_per_node_format),
	        cmocka_unit_test(test_parse_u32),
	        cmocka_unit_test(test_nodes_by_leader),
	        cmocka_unit_test(test_gpu_indexes),
	        cmocka_unit_test(test_step_ids_from_slurm),
	        cmocka_unit_test(test_step_ids_fallback),
	};

	return cmocka_run_group_tests_name("dist_slurmenv", tests, NULL, NULL);
}
