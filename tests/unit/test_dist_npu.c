/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_npu.c: device ids, HCCL layouts, hccn.conf and the wire form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_npu.h"

/* --- dist_npu_ids --- */

static void test_ids_unset_or_empty_counts_from_zero(void **state)
{
	uint32_t ids[DIST_NPUS_MAX];
	struct dist_err err = {{0}};

	(void)state;
	memset(ids, 0xff, sizeof(ids));
	assert_int_equal(dist_npu_ids(NULL, 4, ids, &err), 0);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(ids[i], i);
	assert_int_equal(ids[4], UINT32_MAX); /* nothing written past local_size */
	memset(ids, 0xff, sizeof(ids));
	assert_int_equal(dist_npu_ids("", 3, ids, &err), 0);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(ids[i], i);
	assert_int_equal(ids[3], UINT32_MAX);
	assert_int_equal(dist_npu_ids(NULL, DIST_NPUS_MAX, ids, &err), 0);
	assert_int_equal(ids[DIST_NPUS_MAX - 1], DIST_NPUS_MAX - 1);
}

static void test_ids_from_visible(void **state)
{
	uint32_t ids[DIST_NPUS_MAX];
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_ids("4,5,6,7", 4, ids, &err), 0);
	assert_int_equal(ids[0], 4);
	assert_int_equal(ids[1], 5);
	assert_int_equal(ids[2], 6);
	assert_int_equal(ids[3], 7);
	assert_int_equal(dist_npu_ids("7,0,3", 3, ids, &err), 0);
	assert_int_equal(ids[0], 7);
	assert_int_equal(ids[1], 0);
	assert_int_equal(ids[2], 3);
	assert_int_equal(dist_npu_ids("12", 1, ids, &err), 0);
	assert_int_equal(ids[0], 12);
}

static void test_ids_more_entries_than_tasks_uses_the_first(void **state)
{
	uint32_t ids[DIST_NPUS_MAX];
	struct dist_err err = {{0}};

	(void)state;
	memset(ids, 0xff, sizeof(ids));
	assert_int_equal(dist_npu_ids("2,3,4,5,6,7", 2, ids, &err), 0);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 3);
	assert_int_equal(ids[2], UINT32_MAX);
}

static void test_ids_fewer_entries_than_tasks(void **state)
{
	uint32_t ids[DIST_NPUS_MAX];
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_ids("4", 2, ids, &err), -1);
	assert_string_equal(err.msg, "ASCEND_RT_VISIBLE_DEVICES '4' lists fewer NPUs than the 2 "
	                             "tasks on this node");
	assert_int_equal(dist_npu_ids("0,1,2", 4, ids, &err), -1);
	assert_string_equal(err.msg, "ASCEND_RT_VISIBLE_DEVICES '0,1,2' lists fewer NPUs than the "
	                             "4 tasks on this node");
}

static void expect_malformed_ids(const char *visible, uint32_t local_size)
{
	uint32_t ids[DIST_NPUS_MAX];
	struct dist_err err = {{0}};
	char want[256];

	assert_int_equal(dist_npu_ids(visible, local_size, ids, &err), -1);
	snprintf(want, sizeof(want), "malformed ASCEND_RT_VISIBLE_DEVICES '%s'", visible);
	assert_string_equal(err.msg, want);
}

static void test_ids_malformed(void **state)
{
	(void)state;
	expect_malformed_ids("a,b", 2);
	expect_malformed_ids("1,,2", 2);
	expect_malformed_ids("1;2", 2);
	expect_malformed_ids("1;2", 1);
	expect_malformed_ids("-1", 1);
	expect_malformed_ids(" 1", 1);
	expect_malformed_ids("1, 2", 2);
	expect_malformed_ids("+1", 1);
	expect_malformed_ids("0x1", 1);
	expect_malformed_ids("4294967296", 1);
}

static void test_ids_too_many_tasks(void **state)
{
	uint32_t ids[DIST_NPUS_MAX + 1];
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_ids(NULL, DIST_NPUS_MAX + 1, ids, &err), -1);
	assert_string_equal(err.msg, "17 tasks on one node: at most 16 NPUs a server");
	assert_int_equal(dist_npu_ids("0,1", 40, ids, &err), -1);
	assert_string_equal(err.msg, "40 tasks on one node: at most 16 NPUs a server");
}

/* --- dist_npu_check_layout --- */

static void test_layout_counts_allowed(void **state)
{
	const uint32_t ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct dist_err err = {{0}};

	(void)state;
	for (int g = 0; g < 2; g++) {
		assert_int_equal(dist_npu_check_layout(ids, 1, g, &err), 0);
		assert_int_equal(dist_npu_check_layout(ids, 2, g, &err), 0);
		assert_int_equal(dist_npu_check_layout(ids, 4, g, &err), 0);
		assert_int_equal(dist_npu_check_layout(ids, 8, g, &err), 0);
	}
}

static void test_layout_counts_refused(void **state)
{
	const uint32_t ids[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
	const uint32_t bad[] = {3, 5, 6, 7, 0, 16};
	struct dist_err err = {{0}};
	char want[128];

	(void)state;
	for (int g = 0; g < 2; g++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(&err, 0, sizeof(err));
			assert_int_equal(dist_npu_check_layout(ids, bad[i], g, &err), -1);
			snprintf(want, sizeof(want),
			         "%u NPUs on this node: HCCL needs 1, 2, 4 or 8 a server", bad[i]);
			assert_string_equal(err.msg, want);
		}
	}
}

static void test_layout_duplicates_refused(void **state)
{
	const uint32_t two[] = {1, 1};
	const uint32_t four[] = {0, 1, 2, 0};
	const uint32_t eight[] = {0, 1, 2, 3, 4, 5, 6, 6};
	struct dist_err err = {{0}};

	(void)state;
	for (int g = 0; g < 2; g++) {
		assert_int_equal(dist_npu_check_layout(two, 2, g, &err), -1);
		assert_string_equal(err.msg, "two tasks of this node would share an NPU");
		memset(&err, 0, sizeof(err));
		assert_int_equal(dist_npu_check_layout(four, 4, g, &err), -1);
		assert_string_equal(err.msg, "two tasks of this node would share an NPU");
		memset(&err, 0, sizeof(err));
		assert_int_equal(dist_npu_check_layout(eight, 8, g, &err), -1);
		assert_string_equal(err.msg, "two tasks of this node would share an NPU");
	}
}

static void test_layout_groups_inside_one_group(void **state)
{
	const uint32_t low[] = {0, 1, 2, 3};
	const uint32_t high[] = {4, 5};
	const uint32_t high4[] = {7, 6, 5, 4};
	const uint32_t one[] = {7};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_check_layout(low, 4, true, &err), 0);
	assert_int_equal(dist_npu_check_layout(high, 2, true, &err), 0);
	assert_int_equal(dist_npu_check_layout(high4, 4, true, &err), 0);
	assert_int_equal(dist_npu_check_layout(one, 1, true, &err), 0);
}

static void test_layout_groups_across_groups_refused(void **state)
{
	const uint32_t pair[] = {3, 4};
	const uint32_t four[] = {0, 1, 2, 5};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_check_layout(pair, 2, true, &err), -1);
	assert_string_equal(err.msg, "NPUs 3 and 4 are in different groups (0-3, 4-7): use 1, 2 or "
	                             "4 NPUs inside one group, or all 8");
	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_npu_check_layout(four, 4, true, &err), -1);
	assert_string_equal(err.msg, "NPUs 0 and 5 are in different groups (0-3, 4-7): use 1, 2 or "
	                             "4 NPUs inside one group, or all 8");
}

static void test_layout_groups_all_eight_any_order(void **state)
{
	const uint32_t shuffled[] = {7, 0, 5, 2, 4, 3, 6, 1};
	const uint32_t interleaved[] = {0, 4, 1, 5, 2, 6, 3, 7};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_check_layout(shuffled, 8, true, &err), 0);
	assert_int_equal(dist_npu_check_layout(interleaved, 8, true, &err), 0);
}

static void test_layout_groups_id_beyond_server(void **state)
{
	const uint32_t one[] = {8};
	const uint32_t pair[] = {4, 8};
	const uint32_t eight[] = {0, 1, 2, 3, 4, 5, 6, 8};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_check_layout(one, 1, true, &err), -1);
	assert_string_equal(err.msg, "NPU 8 does not exist on an 8-device server");
	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_npu_check_layout(pair, 2, true, &err), -1);
	assert_string_equal(err.msg, "NPU 8 does not exist on an 8-device server");
	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_npu_check_layout(eight, 8, true, &err), -1);
	assert_string_equal(err.msg, "NPU 8 does not exist on an 8-device server");
}

static void test_layout_no_groups_is_lenient(void **state)
{
	const uint32_t pair[] = {3, 4};
	const uint32_t nine[] = {9};
	const uint32_t four[] = {0, 9, 12, 15};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_npu_check_layout(pair, 2, false, &err), 0);
	assert_int_equal(dist_npu_check_layout(nine, 1, false, &err), 0);
	assert_int_equal(dist_npu_check_layout(four, 4, false, &err), 0);
}

/* --- dist_hccn_lookup --- */

/* An hccn.conf as hccn_tool writes it, with a comment, indentation and CRLF. */
static const char hccn_conf[] = "# hccn.conf written by hccn_tool\r\n"
                                "address_0=192.168.100.1\r\n"
                                "netmask_0=255.255.255.0\r\n"
                                "netdetect_0=192.168.100.254\r\n"
                                "gateway_0=192.168.100.254\r\n"
                                "  address_1=192.168.101.1\r\n"
                                "\tnetmask_1=255.255.255.0\r\n"
                                "netdetect_1=192.168.101.254\r\n"
                                "# address_5=10.0.0.99\r\n"
                                "netmask_5=255.255.255.0\r\n"
                                "address_5=192.168.105.1\r\n"
                                "netdetect_5=192.168.105.254\r\n"
                                "\r\n";

static void test_hccn_realistic(void **state)
{
	const uint32_t ids[] = {0, 1};
	const uint32_t five[] = {5};
	struct dist_npu npus[2];
	struct dist_err err = {{0}};

	(void)state;
	memset(npus, 0, sizeof(npus));
	assert_int_equal(dist_hccn_lookup(hccn_conf, ids, 2, npus, &err), 0);
	assert_int_equal(npus[0].id, 0);
	assert_string_equal(npus[0].ip, "192.168.100.1");
	assert_int_equal(npus[1].id, 1);
	assert_string_equal(npus[1].ip, "192.168.101.1");
	memset(npus, 0, sizeof(npus));
	assert_int_equal(dist_hccn_lookup(hccn_conf, five, 1, npus, &err), 0);
	assert_int_equal(npus[0].id, 5);
	assert_string_equal(npus[0].ip, "192.168.105.1"); /* not the commented-out one */
}

static void test_hccn_lf_and_no_final_newline(void **state)
{
	const uint32_t ids[] = {1, 0};
	struct dist_npu npus[2];
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(
	        dist_hccn_lookup("address_0=10.0.0.1\naddress_1=10.0.0.2", ids, 2, npus, &err), 0);
	assert_int_equal(npus[0].id, 1);
	assert_string_equal(npus[0].ip, "10.0.0.2");
	assert_int_equal(npus[1].id, 0);
	assert_string_equal(npus[1].ip, "10.0.0.1");
}

/* The prefix trap: "address_10=" must not be taken for device 1's "address_1=". */
static void test_hccn_address_10_is_not_address_1(void **state)
{
	const uint32_t one[] = {1};
	const uint32_t ten[] = {10};
	struct dist_npu npus[1];
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_hccn_lookup("address_10=192.168.110.1\n"
	                                  "address_1=192.168.101.1\n",
	                                  one, 1, npus, &err),
	                 0);
	assert_string_equal(npus[0].ip, "192.168.101.1");
	assert_int_equal(dist_hccn_lookup("address_10=192.168.110.1\n"
	                                  "address_1=192.168.101.1\n",
	                                  ten, 1, npus, &err),
	                 0);
	assert_string_equal(npus[0].ip, "192.168.110.1");
	/* Only address_10 present: device 1 has no address. */
	assert_int_equal(dist_hccn_lookup("address_10=192.168.110.1\n", one, 1, npus, &err), -1);
	assert_string_equal(err.msg, "NPU 1 has no valid address_1=<ip> line");
	/* Nor is address_1 taken for device 10, nor bitmap-like names containing it. */
	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_hccn_lookup("address_1=192.168.101.1\n"
	                                  "ip_address_10=192.168.110.9\n",
	                                  ten, 1, npus, &err),
	                 -1);
	assert_string_equal(err.msg, "NPU 10 has no valid address_10=<ip> line");
}

static void test_hccn_missing_device(void **state)
{
	const uint32_t ids[] = {0, 1, 2};
	struct dist_npu npus[3];
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_hccn_lookup(hccn_conf, ids, 3, npus, &err), -1);
	assert_string_equal(err.msg, "NPU 2 has no valid address_2=<ip> line");
	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_hccn_lookup("", ids + 2, 1, npus, &err), -1);
	assert_string_equal(err.msg, "NPU 2 has no valid address_2=<ip> line");
}

static void test_hccn_invalid_value(void **state)
{
	const uint32_t ids[] = {2};
	const char *bad[] = {
	        "address_2=\n",
	        "address_2=192.168.102\n",
	        "address_2=192.168.102.256\r\n",
	        "address_2=npu2.local\n",
	        "address_2 =10.0.0.1\n",
	        "address_2=\r\n",
	};
	struct dist_npu npus[1];
	struct dist_err err = {{0}};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(dist_hccn_lookup(bad[i], ids, 1, npus, &err), -1);
		assert_string_equal(err.msg, "NPU 2 has no valid address_2=<ip> line");
	}
}

/* --- dist_npus_format / dist_npus_parse --- */

static void test_npus_round_trip(void **state)
{
	const char *text = "0=192.168.100.1,1=192.168.101.1,7=10.20.30.40";
	struct dist_npu npus[DIST_NPUS_MAX];
	struct dist_err err = {{0}};
	uint32_t n = 99;
	char buf[256];

	(void)state;
	assert_int_equal(dist_npus_parse(text, npus, DIST_NPUS_MAX, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(npus[0].id, 0);
	assert_string_equal(npus[0].ip, "192.168.100.1");
	assert_int_equal(npus[1].id, 1);
	assert_string_equal(npus[1].ip, "192.168.101.1");
	assert_int_equal(npus[2].id, 7);
	assert_string_equal(npus[2].ip, "10.20.30.40");
	assert_int_equal(dist_npus_format(npus, n, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, text);
}

static void test_npus_format(void **state)
{
	const struct dist_npu npus[] = {{4, "192.168.104.1"}, {5, "192.168.105.1"}};
	struct dist_err err = {{0}};
	char buf[64];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(dist_npus_format(npus, 0, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "");
	assert_int_equal(dist_npus_format(npus, 2, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "4=192.168.104.1,5=192.168.105.1");
}

static void test_npus_format_too_long(void **state)
{
	/* "4=192.168.104.1" is 15 characters: 16 bytes fit it, 15 do not. */
	const struct dist_npu npus[] = {{4, "192.168.104.1"}, {5, "192.168.105.1"}};
	struct dist_err err = {{0}};
	char buf[64];

	(void)state;
	assert_int_equal(dist_npus_format(npus, 1, buf, 16, &err), 0);
	assert_string_equal(buf, "4=192.168.104.1");
	assert_int_equal(dist_npus_format(npus, 1, buf, 15, &err), -1);
	assert_string_equal(err.msg, "NPU list too long");
	/* Both need 31 characters. */
	memset(&err, 0, sizeof(err));
	assert_int_equal(dist_npus_format(npus, 2, buf, 31, &err), -1);
	assert_string_equal(err.msg, "NPU list too long");
	assert_int_equal(dist_npus_format(npus, 2, buf, 32, &err), 0);
	assert_string_equal(buf, "4=192.168.104.1,5=192.168.105.1");
}

static void test_npus_parse_empty(void **state)
{
	struct dist_npu npus[DIST_NPUS_MAX];
	struct dist_err err = {{0}};
	uint32_t n = 5;

	(void)state;
	assert_int_equal(dist_npus_parse("", npus, DIST_NPUS_MAX, &n, &err), 0);
	assert_int_equal(n, 0);
}

static void expect_malformed_npus(const char *text)
{
	struct dist_npu npus[DIST_NPUS_MAX];
	struct dist_err err = {{0}};
	uint32_t n;
	char want[256];

	assert_int_equal(dist_npus_parse(text, npus, DIST_NPUS_MAX, &n, &err), -1);
	snprintf(want, sizeof(want), "malformed NPU list '%s'", text);
	assert_string_equal(err.msg, want);
}

static void test_npus_parse_malformed(void **state)
{
	(void)state;
	expect_malformed_npus("0=");
	expect_malformed_npus("=1.2.3.4");
	expect_malformed_npus("x=1.2.3.4");
	expect_malformed_npus("0=1.2.3");
	expect_malformed_npus("0=1.2.3.4,,1=1.2.3.5");
	expect_malformed_npus("0");
	expect_malformed_npus("0=1.2.3.4,1");
	expect_malformed_npus("-1=1.2.3.4");
	expect_malformed_npus(",0=1.2.3.4");
	expect_malformed_npus("0=1.2.3.4=5");
	expect_malformed_npus("0=1.2.3.4 ");
}

static void test_npus_parse_more_than_max(void **state)
{
	struct dist_npu npus[2];
	struct dist_err err = {{0}};
	uint32_t n;

	(void)state;
	assert_int_equal(dist_npus_parse("0=1.2.3.4,1=1.2.3.5", npus, 2, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(dist_npus_parse("0=1.2.3.4,1=1.2.3.5,2=1.2.3.6", npus, 2, &n, &err), -1);
	assert_string_equal(err.msg, "malformed NPU list '0=1.2.3.4,1=1.2.3.5,2=1.2.3.6'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ids_unset_or_empty_counts_from_zero),
	        cmocka_unit_test(test_ids_from_visible),
	        cmocka_unit_test(test_ids_more_entries_than_tasks_uses_the_first),
	        cmocka_unit_test(test_ids_fewer_entries_than_tasks),
	        cmocka_unit_test(test_ids_malformed),
	        cmocka_unit_test(test_ids_too_many_tasks),
	        cmocka_unit_test(test_layout_counts_allowed),
	        cmocka_unit_test(test_layout_counts_refused),
	        cmocka_unit_test(test_layout_duplicates_refused),
	        cmocka_unit_test(test_layout_groups_inside_one_group),
	        cmocka_unit_test(test_layout_groups_across_groups_refused),
	        cmocka_unit_test(test_layout_groups_all_eight_any_order),
	        cmocka_unit_test(test_layout_groups_id_beyond_server),
	        cmocka_unit_test(test_layout_no_groups_is_lenient),
	        cmocka_unit_test(test_hccn_realistic),
	        cmocka_unit_test(test_hccn_lf_and_no_final_newline),
	        cmocka_unit_test(test_hccn_address_10_is_not_address_1),
	        cmocka_unit_test(test_hccn_missing_device),
	        cmocka_unit_test(test_hccn_invalid_value),
	        cmocka_unit_test(test_npus_round_trip),
	        cmocka_unit_test(test_npus_format),
	        cmocka_unit_test(test_npus_format_too_long),
	        cmocka_unit_test(test_npus_parse_empty),
	        cmocka_unit_test(test_npus_parse_malformed),
	        cmocka_unit_test(test_npus_parse_more_than_max),
	};

	return cmocka_run_group_tests_name("dist_npu", tests, NULL, NULL);
}
