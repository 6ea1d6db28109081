/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_pmimap.c: PMI_process_mapping as Slurm's mpi/pmi2
 * serves it, MPICH's repetition, and what must be refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_pmimap.h"

#define MAX_RANKS 16

static void assert_mapping(const char *text, uint32_t size, const uint32_t *expected,
                           uint32_t expected_nodes)
{
	uint32_t node_of[MAX_RANKS], nnodes = 99;
	struct dist_err err = {{0}};

	assert_int_equal(dist_pmi_mapping_parse(text, size, node_of, &nnodes, &err), 0);
	assert_int_equal(nnodes, expected_nodes);
	for (uint32_t r = 0; r < size; r++)
		assert_int_equal(node_of[r], expected[r]);
}

static void assert_refused(const char *text, uint32_t size, const char *why)
{
	uint32_t node_of[MAX_RANKS], nnodes;
	struct dist_err err = {{0}};

	assert_int_equal(dist_pmi_mapping_parse(text, size, node_of, &nnodes, &err), -1);
	assert_non_null(strstr(err.msg, why));
}

static void test_block(void **state)
{
	const uint32_t expected[] = {0, 0, 1, 1, 2, 2};

	(void)state;
	assert_mapping("(vector,(0,3,2))", 6, expected, 3);
}

static void test_uneven_blocks(void **state)
{
	/* srun -N3 -n5: 2, 2, 1 */
	const uint32_t expected[] = {0, 0, 1, 1, 2};

	(void)state;
	assert_mapping("(vector,(0,2,2),(2,1,1))", 5, expected, 3);
}

static void test_cyclic_written_out(void **state)
{
	/* srun -N3 --ntasks-per-node=2 --distribution=cyclic */
	const uint32_t expected[] = {0, 1, 2, 0, 1, 2};

	(void)state;
	assert_mapping("(vector,(0,3,1),(0,3,1))", 6, expected, 3);
}

static void test_cyclic_repeated(void **state)
{
	/* MPICH's reading: the list starts again while ranks remain. */
	const uint32_t expected[] = {0, 1, 2, 0, 1, 2};

	(void)state;
	assert_mapping("(vector,(0,3,1))", 6, expected, 3);
}

static void test_single_rank(void **state)
{
	const uint32_t expected[] = {0};

	(void)state;
	assert_mapping("(vector,(0,1,1))", 1, expected, 1);
}

static void test_rank0_not_on_node0(void **state)
{
	/* An arbitrary distribution may start on another node. */
	const uint32_t expected[] = {1, 0, 0};

	(void)state;
	assert_mapping("(vector,(1,1,1),(0,1,2))", 3, expected, 2);
}

static void test_refuses_malformed(void **state)
{
	(void)state;
	assert_refused("", 2, "not a (vector");
	assert_refused("(vector)", 2, "malformed");
	assert_refused("(vector,(0,2,1)", 2, "malformed");
	assert_refused("(vector,(0,2,1)) ", 2, "malformed");
	assert_refused("(vector,(0,2))", 2, "malformed");
	assert_refused("(vector,(0,2,1),)", 2, "malformed");
	assert_refused("(vector,(0,-2,1))", 2, "malformed");
	assert_refused("(vector,(0,99999999999,1))", 2, "malformed");
	assert_refused("(vector,0,2,1)", 2, "malformed");
	assert_refused("(hostlist,(0,2,1))", 2, "not a (vector");
}

static void test_refuses_impossible(void **state)
{
	(void)state;
	assert_refused("(vector,(0,0,1))", 2, "does not fit");
	assert_refused("(vector,(0,1,0))", 2, "does not fit");
	assert_refused("(vector,(0,3,1))", 2, "does not fit");
	assert_refused("(vector,(4294967295,2,1))", 2, "does not fit");
	/* Node 1 would hold nothing. */
	assert_refused("(vector,(0,1,1),(2,1,1))", 3, "gives node 1 no rank");
	assert_refused("(vector,(0,1,1))", 0, "no ranks");
}

static void assert_formats(const uint32_t *node_of, uint32_t size, const char *expected)
{
	struct dist_buf buf = DIST_BUF_INIT;
	struct dist_err err = {{0}};

	assert_int_equal(dist_pmi_mapping_format(node_of, size, &buf, &err), 0);
	assert_string_equal(dist_buf_str(&buf), expected);
	dist_buf_free(&buf);
}

static void test_format(void **state)
{
	const uint32_t block[] = {0, 0, 1, 1, 2, 2}, cyclic[] = {0, 1, 2, 0, 1, 2},
	               uneven[] = {0, 0, 1, 1, 2};

	(void)state;
	assert_formats(block, 6, "(vector,(0,3,2))");
	assert_formats(cyclic, 6, "(vector,(0,3,1),(0,3,1))");
	assert_formats(uneven, 5, "(vector,(0,2,2),(2,1,1))");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_block),
	        cmocka_unit_test(test_uneven_blocks),
	        cmocka_unit_test(test_cyclic_written_out),
	        cmocka_unit_test(test_cyclic_repeated),
	        cmocka_unit_test(test_single_rank),
	        cmocka_unit_test(test_rank0_not_on_node0),
	        cmocka_unit_test(test_refuses_malformed),
	        cmocka_unit_test(test_refuses_impossible),
	        cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
