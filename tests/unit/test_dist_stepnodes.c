/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_stepnodes.c: the step's node order and addresses
 * srun's plugin hands to tasks without PMI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist_stepnodes.h"

static char *format(const struct dist_stepnodes *s)
{
	struct dist_buf out = DIST_BUF_INIT;
	struct dist_err err = {{0}};

	assert_int_equal(dist_stepnodes_format(s, &out, &err), 0);
	return dist_buf_take(&out);
}

static void test_identity_order_first_address(void **state)
{
	char *addrs[] = {"10.77.0.1"};
	struct dist_stepnodes s = {.job = 7, .step = 3, .nnodes = 3, .addrs = addrs, .naddrs = 1};
	struct dist_stepnodes back;
	struct dist_err err = {{0}};
	char *text = format(&s);

	(void)state;
	assert_string_equal(text, "7.3 3 - 10.77.0.1");
	assert_int_equal(dist_stepnodes_parse(text, &back, &err), 0);
	assert_int_equal(back.job, 7);
	assert_int_equal(back.step, 3);
	assert_int_equal(back.nnodes, 3);
	assert_null(back.order);
	assert_int_equal(back.naddrs, 1);
	assert_string_equal(back.addrs[0], "10.77.0.1");
	dist_stepnodes_free(&back);
	free(text);
}

static void test_order_and_every_address(void **state)
{
	uint32_t order[] = {2, 0, 1};
	char *addrs[] = {"tcn3-ib", "10.77.0.1", "10.77.0.2"};
	struct dist_stepnodes s = {
	        .job = 12, .step = 0, .nnodes = 3, .order = order, .addrs = addrs, .naddrs = 3};
	struct dist_stepnodes back;
	struct dist_err err = {{0}};
	char *text = format(&s);

	(void)state;
	assert_string_equal(text, "12.0 3 2,0,1 tcn3-ib,10.77.0.1,10.77.0.2");
	assert_int_equal(dist_stepnodes_parse(text, &back, &err), 0);
	assert_non_null(back.order);
	assert_memory_equal(back.order, order, sizeof(order));
	assert_int_equal(back.naddrs, 3);
	assert_string_equal(back.addrs[2], "10.77.0.2");
	dist_stepnodes_free(&back);
	free(text);
}

static void test_format_refuses(void **state)
{
	char *two[] = {"a", "b"}, *bad[] = {"a,b"};
	struct dist_stepnodes s = {.job = 1, .step = 1, .nnodes = 3, .addrs = two, .naddrs = 2};
	struct dist_buf out = DIST_BUF_INIT;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_stepnodes_format(&s, &out, &err), -1); /* neither 1 nor 3 */
	s.addrs = bad;
	s.naddrs = 1;
	assert_int_equal(dist_stepnodes_format(&s, &out, &err), -1);
	assert_non_null(strstr(err.msg, "NodeAddr 'a,b'"));
	dist_buf_free(&out);
}

static void test_parse_refuses(void **state)
{
	static const char *const bad[] = {
	        "",
	        "7.3",
	        "7.3 3",
	        "7.3 3 -",
	        "7.3 0 - a",
	        "7 3 - a",
	        "7.3 3 1,2 a",   /* order too short */
	        "7.3 3 0,0,1 a", /* not a permutation */
	        "7.3 3 0,1,3 a", /* out of range */
	        "7.3 3 - a,b",   /* neither 1 nor 3 addresses */
	        "7.3 3 - a,,b",  /* empty address */
	        "7.3 3 - a b",   /* space in an address */
	        "x.3 3 - a",
	};
	struct dist_stepnodes s;
	struct dist_err err = {{0}};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (dist_stepnodes_parse(bad[i], &s, &err) != -1)
			fail_msg("'%s' was accepted", bad[i]);
	assert_int_equal(dist_stepnodes_parse(NULL, &s, &err), -1);
	assert_non_null(strstr(err.msg, "malformed step node table"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_identity_order_first_address),
	        cmocka_unit_test(test_order_and_every_address),
	        cmocka_unit_test(test_format_refuses),
	        cmocka_unit_test(test_parse_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
