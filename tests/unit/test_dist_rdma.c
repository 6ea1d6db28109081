/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Choosing NCCL's RoCE GID from GID tables in show_gids' format (written for
 * these tests in the layout Mellanox's show_gids prints; no HCA here). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dist_rdma.h"

/* A RoCE HCA with IPv6 link-local and IPv4 GIDs in v1 and v2, and an IB HCA. */
static const char show_gids[] =
        "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
        "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
        "mlx5_0\t1\t0\tfe80:0000:0000:0000:ba59:9fff:fe2c:1a3e\t\t\tv1\tens1f0\n"
        "mlx5_0\t1\t1\tfe80:0000:0000:0000:ba59:9fff:fe2c:1a3e\t\t\tv2\tens1f0\n"
        "mlx5_0\t1\t2\t0000:0000:0000:0000:0000:ffff:0a4d:0001\t10.77.0.1  \tv1\tens1f0\n"
        "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a4d:0001\t10.77.0.1  \tv2\tens1f0\n"
        "mlx5_1\t1\t0\tfe80:0000:0000:0000:0002:c903:00a1:b2c3\t\t\tv1\tib0\n"
        "n_gids_found=5\n";

static void test_roce_v2_ipv4_is_index_3(void **state)
{
	struct dist_gid gids[16];
	struct dist_err err = {{0}};
	size_t n;

	(void)state;
	assert_int_equal(dist_gids_parse_show_gids(show_gids, "mlx5_0", gids, 16, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(gids[3].index, 3);
	assert_true(gids[3].roce_v2);
	assert_int_equal(gids[3].raw[10], 0xff);
	assert_int_equal(gids[3].raw[12], 10);
	assert_int_equal(gids[3].raw[15], 1);
	assert_int_equal(dist_roce_v2_ipv4_gid(gids, n, 1), 3);
	/* Another port has none. */
	assert_int_equal(dist_roce_v2_ipv4_gid(gids, n, 2), -1);
}

static void test_infiniband_has_no_roce_gid(void **state)
{
	struct dist_gid gids[16];
	struct dist_err err = {{0}};
	size_t n;

	(void)state;
	assert_int_equal(dist_gids_parse_show_gids(show_gids, "mlx5_1", gids, 16, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(dist_roce_v2_ipv4_gid(gids, n, 1), -1);
}

static void test_v1_ipv4_alone_is_not_chosen(void **state)
{
	struct dist_gid gids[16];
	struct dist_err err = {{0}};
	size_t n;
	const char *only_v1 =
	        "mlx5_2\t1\t2\t0000:0000:0000:0000:0000:ffff:c0a8:0001\t192.168.0.1\tv1\teth2\n";

	(void)state;
	assert_int_equal(dist_gids_parse_show_gids(only_v1, "mlx5_2", gids, 16, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(dist_roce_v2_ipv4_gid(gids, n, 1), -1);
}

static void test_unknown_device_and_limits(void **state)
{
	struct dist_gid gids[2];
	struct dist_err err = {{0}};
	size_t n = 99;

	(void)state;
	assert_int_equal(dist_gids_parse_show_gids(show_gids, "mlx5_9", gids, 2, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(dist_gids_parse_show_gids(show_gids, "mlx5_0", gids, 2, &n, &err), -1);
	assert_string_equal(err.msg, "more than 2 GIDs for mlx5_0");
}

static void test_malformed_gid_rejected(void **state)
{
	struct dist_gid gids[4];
	struct dist_err err = {{0}};
	size_t n;

	(void)state;
	assert_int_equal(dist_gids_parse_show_gids("mlx5_0\t1\t3\tnot-a-gid\tv2\tens1f0\n",
	                                           "mlx5_0", gids, 4, &n, &err),
	                 -1);
	assert_int_equal(dist_gids_parse_show_gids("mlx5_0\tx\t3\t0000:0000:0000:0000:0000:ffff:"
	                                           "0a4d:0001\tv2\n",
	                                           "mlx5_0", gids, 4, &n, &err),
	                 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_roce_v2_ipv4_is_index_3),
	        cmocka_unit_test(test_infiniband_has_no_roce_gid),
	        cmocka_unit_test(test_v1_ipv4_alone_is_not_chosen),
	        cmocka_unit_test(test_unknown_device_and_limits),
	        cmocka_unit_test(test_malformed_gid_rejected),
	};

	return cmocka_run_group_tests_name("dist_rdma", tests, NULL, NULL);
}
