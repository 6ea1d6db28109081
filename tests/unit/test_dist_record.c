/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_record.c: the node record other tasks send
 * through the exchange, and what must be refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_record.h"

static struct dist_node_record rec, back;

static void test_ok_record_round_trip(void **state)
{
	const char *text =
	        "ok 4 24001,24002 0=192.168.100.1 eth0=10.77.0.1/24,docker0=172.17.0.1/16";
	struct dist_err err = {{0}};
	char out[DIST_RECORD_MAX];

	(void)state;
	assert_int_equal(dist_node_record_parse(text, &rec, &err), 0);
	assert_false(rec.failed);
	assert_int_equal(rec.gpus, 4);
	assert_string_equal(rec.ports, "24001,24002");
	assert_string_equal(rec.extra, "0=192.168.100.1");
	assert_int_equal(rec.addrs.count, 2);
	assert_string_equal(rec.addrs.a[1].ifname, "docker0");
	assert_int_equal(dist_node_record_format(&rec, out, sizeof(out), &err), 0);
	assert_string_equal(out, text);
	assert_int_equal(dist_node_record_parse("ok 0 - -  ", &back, &err), -1);
	assert_int_equal(dist_node_record_parse("ok 0 - - ", &back, &err), 0);
	assert_int_equal(back.addrs.count, 0);
}

static void test_failed_record(void **state)
{
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_node_record_parse("failed rank 3 on tcn2: no such file", &rec, &err),
	                 0);
	assert_true(rec.failed);
	assert_string_equal(rec.why, "rank 3 on tcn2: no such file");
}

/* Found by the fuzzer: a failure record longer than the exchange carries
 * was accepted and came back cut. */
static void test_record_too_long(void **state)
{
	static char text[DIST_RECORD_MAX + 8];
	struct dist_err err = {{0}};

	(void)state;
	memset(text, 'x', sizeof(text) - 1);
	memcpy(text, DIST_RECORD_FAILED, strlen(DIST_RECORD_FAILED));
	text[DIST_RECORD_MAX - 1] = '\0';
	assert_int_equal(dist_node_record_parse(text, &rec, &err), 0);
	text[DIST_RECORD_MAX - 1] = 'x';
	text[DIST_RECORD_MAX] = '\0';
	assert_int_equal(dist_node_record_parse(text, &rec, &err), -1);
}

static void test_malformed_records(void **state)
{
	static const char *const bad[] = {
	        "",           "ok",           "ok ",           "ok 4",
	        "ok 4 24001", "ok 4 24001 -", "ok x 24001 - ", "ok -1 - - ",
	        "ok 4  - - ", "OK 4 - - ",    "ok 4 - - eth0", "ok 99999999999 - - ",
	        "failure x",
	};
	struct dist_err err = {{0}};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(dist_node_record_parse(bad[i], &rec, &err), -1);
}

/* Addresses that do not fit are left out whole; ports and devices that do
 * not fit, or fields that would not parse back, are refused. */
static void test_format_limits(void **state)
{
	struct dist_err err = {{0}};
	char out[40];

	(void)state;
	assert_int_equal(dist_node_record_parse("ok 1 24001 - eth0=10.77.0.1/24,ens5=10.78.0.1/24",
	                                        &rec, &err),
	                 0);
	assert_int_equal(dist_node_record_format(&rec, out, sizeof(out), &err), 0);
	assert_string_equal(out, "ok 1 24001 - ");
	assert_int_equal(dist_node_record_format(&rec, out, 8, &err), -1);
	snprintf(rec.extra, sizeof(rec.extra), "a b");
	assert_int_equal(dist_node_record_format(&rec, out, sizeof(out), &err), -1);
	rec.extra[0] = '\0';
	assert_int_equal(dist_node_record_format(&rec, out, sizeof(out), &err), -1);
}

static void test_task_ports(void **state)
{
	uint16_t ports[3];

	(void)state;
	assert_int_equal(dist_task_ports_parse("24001,24002,65535", 3, ports), 0);
	assert_int_equal(ports[0], 24001);
	assert_int_equal(ports[2], 65535);
	assert_int_equal(dist_task_ports_parse("-", 0, ports), 0);
	assert_int_equal(dist_task_ports_parse("24001,24002", 3, ports), -1);
	assert_int_equal(dist_task_ports_parse("24001,24002,24003", 2, ports), -1);
	assert_int_equal(dist_task_ports_parse("24001,0", 2, ports), -1);
	assert_int_equal(dist_task_ports_parse("24001,65536", 2, ports), -1);
	assert_int_equal(dist_task_ports_parse("24001x", 1, ports), -1);
	assert_int_equal(dist_task_ports_parse("24001,", 1, ports), -1);
	assert_int_equal(dist_task_ports_parse("-", 1, ports), -1);
	assert_int_equal(dist_task_ports_parse("24001", 0, ports), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ok_record_round_trip),
	        cmocka_unit_test(test_failed_record),
	        cmocka_unit_test(test_record_too_long),
	        cmocka_unit_test(test_malformed_records),
	        cmocka_unit_test(test_format_limits),
	        cmocka_unit_test(test_task_ports),
	};

	return cmocka_run_group_tests_name("dist_record", tests, NULL, NULL);
}
