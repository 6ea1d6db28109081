/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_check.c: --dist-check values, the ring each
 * node's first task tries, and which interface name a user's variables fix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_check.h"

static void test_parse_valid(void **state)
{
	struct dist_check c;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_check_parse("--dist-check", "net", &c, &err), 0);
	assert_true(c.net);
	assert_int_equal(c.timeout_s, DIST_CHECK_TIMEOUT_DEFAULT);
	assert_int_equal(dist_check_parse("--dist-check", "net:17", &c, &err), 0);
	assert_true(c.net);
	assert_int_equal(c.timeout_s, 17);
	assert_int_equal(dist_check_parse("--dist-check", "net:300", &c, &err), 0);
	assert_int_equal(c.timeout_s, 300);
	assert_int_equal(dist_check_parse("--dist-check", "none", &c, &err), 0);
	assert_false(c.net);
}

static void expect_refused(const char *text, const char *msg)
{
	struct dist_check c;
	struct dist_err err = {{0}};

	assert_int_equal(dist_check_parse("--dist-check", text, &c, &err), -1);
	if (!strstr(err.msg, msg))
		fail_msg("'%s': got '%s', expected '%s'", text ? text : "(null)", err.msg, msg);
}

static void test_parse_invalid(void **state)
{
	(void)state;
	expect_refused("", "unknown check ''");
	expect_refused(NULL, "unknown check ''");
	expect_refused("nccl", "unknown check 'nccl' (known: net, net:SECONDS, none");
	expect_refused("netx", "unknown check 'netx'");
	expect_refused("ne", "unknown check 'ne'");
	expect_refused("none:3", "unknown check 'none:3'");
	expect_refused("net:", "invalid timeout ''");
	expect_refused("net:0", "invalid timeout '0': expected seconds, 1 to 300");
	expect_refused("net:301", "invalid timeout '301'");
	expect_refused("net:5s", "invalid timeout '5s'");
	expect_refused("net:-1", "invalid timeout '-1'");
}

static void test_ring(void **state)
{
	(void)state;
	assert_int_equal(dist_check_ring_next(0, 3), 1);
	assert_int_equal(dist_check_ring_next(1, 3), 2);
	assert_int_equal(dist_check_ring_next(2, 3), 0);
	assert_int_equal(dist_check_ring_next(0, 2), 1);
	assert_int_equal(dist_check_ring_next(1, 2), 0);
	/* Every node is a destination exactly once: nnodes paths in all. */
	for (uint32_t n = 1; n < 50; n++) {
		uint32_t hits[50] = {0};

		for (uint32_t k = 0; k < n; k++)
			hits[dist_check_ring_next(k, n)]++;
		for (uint32_t k = 0; k < n; k++)
			assert_int_equal(hits[k], 1);
	}
}

static void test_node_leader(void **state)
{
	/* Ranks block-cyclic over 3 nodes of 2, 3 and 1 tasks. */
	static const struct dist_node nodes[3] = {{.ntasks = 2}, {.ntasks = 3}, {.ntasks = 1}};
	static const uint32_t ranks[6] = {0, 3, 1, 4, 5, 2};
	struct dist_world w = {.nnodes = 3, .size = 6, .nodes = nodes, .ranks_by_node = ranks};

	(void)state;
	assert_int_equal(dist_check_node_leader(&w, 0), 0);
	assert_int_equal(dist_check_node_leader(&w, 1), 1);
	assert_int_equal(dist_check_node_leader(&w, 2), 2);
}

static void test_user_ifname(void **state)
{
	char buf[DIST_IFNAME_MAX];

	(void)state;
	assert_null(dist_check_user_ifname(NULL, NULL, buf, sizeof(buf)));
	assert_string_equal(dist_check_user_ifname("ib0", NULL, buf, sizeof(buf)), "ib0");
	assert_string_equal(dist_check_user_ifname("ib0", "=eth0", buf, sizeof(buf)), "ib0");
	assert_string_equal(dist_check_user_ifname(NULL, "=eth0", buf, sizeof(buf)), "eth0");
	assert_string_equal(dist_check_user_ifname("", "=eth0", buf, sizeof(buf)), "eth0");
	/* NCCL's prefixes and exclusions leave the choice to NCCL. */
	assert_null(dist_check_user_ifname(NULL, "eth", buf, sizeof(buf)));
	assert_null(dist_check_user_ifname(NULL, "^docker0,lo", buf, sizeof(buf)));
	assert_null(dist_check_user_ifname(NULL, "=eth0,eth1", buf, sizeof(buf)));
	assert_null(dist_check_user_ifname("eth0,eth1", NULL, buf, sizeof(buf)));
	assert_null(dist_check_user_ifname("a-name-longer-than-ifnamsiz", NULL, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_parse_valid), cmocka_unit_test(test_parse_invalid),
	        cmocka_unit_test(test_ring),        cmocka_unit_test(test_node_leader),
	        cmocka_unit_test(test_user_ifname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
