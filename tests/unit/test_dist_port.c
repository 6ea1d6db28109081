/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_port.c: port range parsing, the first port of a
 * step and the search for a free one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_port.h"

static void test_range_parse_valid(void **state)
{
	struct dist_port_range range = {0, 0};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_port_range_parse("20000-31999", &range, &err), 0);
	assert_int_equal(range.lo, 20000);
	assert_int_equal(range.hi, 31999);
	assert_int_equal(dist_port_range_parse("1024-65535", &range, &err), 0);
	assert_int_equal(range.lo, 1024);
	assert_int_equal(range.hi, 65535);
	assert_int_equal(dist_port_range_parse("40000-40000", &range, &err), 0);
	assert_int_equal(range.lo, 40000);
	assert_int_equal(range.hi, 40000);
}

static void test_range_parse_default(void **state)
{
	struct dist_port_range range = {0, 0};
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_port_range_parse(DIST_PORT_RANGE_DEFAULT, &range, &err), 0);
	assert_int_equal(range.lo, 20000);
	assert_int_equal(range.hi, 31999);
}

static void assert_range_rejected(const char *text)
{
	struct dist_port_range range = {1111, 2222};
	struct dist_err err = {{0}};
	char expected[sizeof(err.msg)];

	assert_int_equal(dist_port_range_parse(text, &range, &err), -1);
	snprintf(expected, sizeof(expected),
	         "invalid port range '%s': expected LO-HI with 1024 <= LO <= HI <= 65535, e.g. "
	         "20000-31999",
	         text ? text : "");
	assert_string_equal(err.msg, expected);
	/* The range is left alone on error. */
	assert_int_equal(range.lo, 1111);
	assert_int_equal(range.hi, 2222);
}

static void test_range_parse_invalid(void **state)
{
	(void)state;
	assert_range_rejected("30000-20000"); /* reversed */
	assert_range_rejected("1023-2000");   /* below 1024 */
	assert_range_rejected("0-2000");
	assert_range_rejected("20000-65536"); /* above 65535 */
	assert_range_rejected("20000-99999999999999999999");
	assert_range_rejected("abc");
	assert_range_rejected("20000");
	assert_range_rejected("20000-");
	assert_range_rejected("-20000");
	assert_range_rejected("20000-30000x"); /* trailing text */
	assert_range_rejected("20000-30000 ");
	assert_range_rejected(" 20000-30000");
	assert_range_rejected("20000- 30000");
	assert_range_rejected("20000-+30000");
	assert_range_rejected("");
	assert_range_rejected(NULL);
}

static void test_first_stays_in_range(void **state)
{
	const struct dist_port_range ranges[] = {
	        {20000, 31999}, {1024, 65535}, {40000, 40009}, {50000, 50000}};
	const uint32_t ids[] = {0, 1, 2, 1008, 1009, 123456, 4000000000u, UINT32_MAX};

	(void)state;
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
		for (size_t j = 0; j < sizeof(ids) / sizeof(ids[0]); j++)
			for (size_t s = 0; s < sizeof(ids) / sizeof(ids[0]); s++) {
				uint16_t port = dist_port_first(&ranges[r], ids[j], ids[s]);

				/* cmocka 2 deprecates assert_in_range; this reads the same in 1.x
				 */
				assert_true(port >= ranges[r].lo && port <= ranges[r].hi);
			}
}

static void test_first_is_deterministic(void **state)
{
	const struct dist_port_range range = {20000, 31999};

	(void)state;
	assert_int_equal(dist_port_first(&range, 4242, 3), dist_port_first(&range, 4242, 3));
}

static void test_first_differs_for_consecutive_steps(void **state)
{
	const struct dist_port_range ranges[] = {{20000, 31999}, {40000, 40009}};

	(void)state;
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
		for (uint32_t step = 0; step < 8; step++)
			assert_int_not_equal(dist_port_first(&ranges[r], 777, step),
			                     dist_port_first(&ranges[r], 777, step + 1));
}

static void test_first_differs_for_consecutive_jobs(void **state)
{
	const struct dist_port_range ranges[] = {{20000, 31999}, {40000, 40009}, {1024, 65535}};

	(void)state;
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
		for (uint32_t job = 1000; job < 1010; job++) {
			assert_int_not_equal(dist_port_first(&ranges[r], job, 0),
			                     dist_port_first(&ranges[r], job + 1, 0));
			assert_int_not_equal(dist_port_first(&ranges[r], job, 1),
			                     dist_port_first(&ranges[r], job + 1, 1));
		}
}

/* --- dist_port_pick with a recorded is_free --- */

struct fake_ports {
	uint16_t free[4]; /* the ports that are free; 0 ends the list */
	uint16_t asked[128];
	size_t nasked;
};

static bool fake_is_free(uint16_t port, void *ctx)
{
	struct fake_ports *fake = ctx;

	assert_true(fake->nasked < sizeof(fake->asked) / sizeof(fake->asked[0]));
	fake->asked[fake->nasked++] = port;
	for (size_t i = 0; i < sizeof(fake->free) / sizeof(fake->free[0]) && fake->free[i]; i++)
		if (fake->free[i] == port)
			return true;
	return false;
}

static void test_pick_first_free(void **state)
{
	const struct dist_port_range range = {20000, 31999};
	struct fake_ports fake = {.free = {25000, 25001}};
	struct dist_err err = {{0}};
	uint16_t port = 0;

	(void)state;
	assert_int_equal(dist_port_pick(&range, 25000, fake_is_free, &fake, &port, &err), 0);
	assert_int_equal(port, 25000);
	assert_int_equal(fake.nasked, 1);
	assert_int_equal(fake.asked[0], 25000);
}

static void test_pick_skips_taken(void **state)
{
	const struct dist_port_range range = {20000, 31999};
	struct fake_ports fake = {.free = {25003, 25004}};
	struct dist_err err = {{0}};
	uint16_t port = 0;

	(void)state;
	assert_int_equal(dist_port_pick(&range, 25000, fake_is_free, &fake, &port, &err), 0);
	assert_int_equal(port, 25003);
	assert_int_equal(fake.nasked, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(fake.asked[i], 25000 + i);
}

static void test_pick_wraps_around_range_end(void **state)
{
	const struct dist_port_range range = {20000, 20099};
	struct fake_ports fake = {.free = {20001}};
	struct dist_err err = {{0}};
	uint16_t port = 0;

	(void)state;
	assert_int_equal(dist_port_pick(&range, 20098, fake_is_free, &fake, &port, &err), 0);
	assert_int_equal(port, 20001);
	assert_int_equal(fake.nasked, 4);
	assert_int_equal(fake.asked[0], 20098);
	assert_int_equal(fake.asked[1], 20099);
	assert_int_equal(fake.asked[2], 20000);
	assert_int_equal(fake.asked[3], 20001);
}

static void test_pick_first_outside_range_starts_at_lo(void **state)
{
	const struct dist_port_range range = {20000, 20099};
	struct fake_ports fake = {.free = {20000}};
	struct dist_err err = {{0}};
	uint16_t port = 0;

	(void)state;
	assert_int_equal(dist_port_pick(&range, 5000, fake_is_free, &fake, &port, &err), 0);
	assert_int_equal(port, 20000);
	assert_int_equal(fake.nasked, 1);
}

static void test_pick_gives_up_after_tries(void **state)
{
	const struct dist_port_range range = {20000, 31999};
	/* Free, but only after DIST_PORT_TRIES taken ones. */
	struct fake_ports fake = {.free = {25000 + DIST_PORT_TRIES}};
	struct dist_err err = {{0}};
	uint16_t port = 4321;
	char expected[sizeof(err.msg)];

	(void)state;
	assert_int_equal(dist_port_pick(&range, 25000, fake_is_free, &fake, &port, &err), -1);
	assert_int_equal(port, 4321);
	assert_int_equal(fake.nasked, DIST_PORT_TRIES);
	for (size_t i = 0; i < DIST_PORT_TRIES; i++)
		assert_int_equal(fake.asked[i], 25000 + i);
	snprintf(expected, sizeof(expected),
	         "no free port among %d tried from 25000 in 20000-31999; widen port_range or "
	         "export MASTER_PORT",
	         DIST_PORT_TRIES);
	assert_string_equal(err.msg, expected);
}

static void test_pick_range_smaller_than_tries(void **state)
{
	const struct dist_port_range range = {40000, 40009};
	struct fake_ports fake = {.free = {0}};
	struct dist_err err = {{0}};
	uint16_t port = 0;

	(void)state;
	assert_true(10 < DIST_PORT_TRIES);
	assert_int_equal(dist_port_pick(&range, 40007, fake_is_free, &fake, &port, &err), -1);
	/* Each port of the range asked exactly once, from 40007 round to 40006. */
	assert_int_equal(fake.nasked, 10);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(fake.asked[i], 40000 + (7 + i) % 10);
	assert_string_equal(err.msg, "no free port among 10 tried from 40007 in 40000-40009; widen "
	                             "port_range or export MASTER_PORT");
}

static void test_pick_single_port_range(void **state)
{
	const struct dist_port_range range = {40000, 40000};
	struct fake_ports fake = {.free = {40000}};
	struct dist_err err = {{0}};
	uint16_t port = 0;

	(void)state;
	assert_int_equal(dist_port_pick(&range, 40000, fake_is_free, &fake, &port, &err), 0);
	assert_int_equal(port, 40000);
	assert_int_equal(fake.nasked, 1);
}

/* A stride that some range size divides would give every job the same port. */
static void test_first_differs_for_consecutive_jobs_any_range_size(void **state)
{
	(void)state;
	for (uint32_t size = 2; size <= 64512; size++) {
		const struct dist_port_range range = {1024, (uint16_t)(1024 + size - 1)};

		assert_int_not_equal(dist_port_first(&range, 1000, 0),
		                     dist_port_first(&range, 1001, 0));
	}
}

/* Every port the shim picks for a step (from the master's part) and HCCL's
 * block are disjoint for any job and step: 100,000 job ids at steps 0 to 3
 * over the default and a site's range (the old scheme overlapped for 274 of
 * 100,000 job ids at step 0). */
static void check_disjoint(const char *text)
{
	struct dist_port_range range, master, hccl;
	struct dist_err err = {{0}};

	assert_int_equal(dist_port_range_parse(text, &range, &err), 0);
	assert_int_equal(dist_port_split_hccl(&range, &master, &hccl, &err), 0);
	assert_int_equal(master.lo, range.lo);
	assert_int_equal(hccl.hi, range.hi);
	assert_true(master.hi + 1 < hccl.lo);
	assert_true(hccl.hi - hccl.lo + 1 >= DIST_HCCL_PORTS);
	for (uint32_t job = 1; job <= 100000; job++)
		for (uint32_t step = 0; step < 4; step++) {
			uint16_t first = dist_port_first(&master, job, step);
			uint16_t base = dist_port_hccl_base(&hccl, job, step);

			/* The master (and MASTER_PORT+1) stay in the master's part. */
			if (first < master.lo || first > master.hi)
				fail_msg("job %u step %u: master %u outside %u-%u", job, step,
				         first, master.lo, master.hi);
			if (base < hccl.lo || (uint32_t)base + DIST_HCCL_PORTS - 1 > hccl.hi ||
			    (base - hccl.lo) % DIST_HCCL_PORTS != 0)
				fail_msg("job %u step %u: HCCL block %u outside %u-%u", job, step,
				         base, hccl.lo, hccl.hi);
			if ((uint32_t)master.hi + 1 >= base)
				fail_msg("job %u step %u: master part reaches HCCL's block %u", job,
				         step, base);
		}
}

static void test_hccl_disjoint_from_master(void **state)
{
	(void)state;
	check_disjoint(DIST_PORT_RANGE_DEFAULT);
	check_disjoint("24000-24999");
	check_disjoint("1024-65535");
	check_disjoint("30000-30063");
	check_disjoint("30000-30064");
}

static void test_hccl_split_too_small(void **state)
{
	struct dist_port_range range = {30000, 30062}, master, hccl;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_port_split_hccl(&range, &master, &hccl, &err), -1);
	assert_string_equal(err.msg, "port range 30000-30062 is too small for --dist-mode=ascend: "
	                             "it needs at least 64 ports (half of them for HCCL's blocks "
	                             "of 32)");
}

/* HCCL's blocks of a step are spread: neighbouring jobs differ. */
static void test_hccl_base_spread(void **state)
{
	struct dist_port_range range = {20000, 31999}, master, hccl;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_port_split_hccl(&range, &master, &hccl, &err), 0);
	assert_int_not_equal(dist_port_hccl_base(&hccl, 100, 0),
	                     dist_port_hccl_base(&hccl, 101, 0));
	assert_int_equal(dist_port_hccl_base(&hccl, 100, 0), dist_port_hccl_base(&hccl, 100, 0));
}

/* Each use's first port, as the shim computed it before the uses had names
 * (relay and HCCL from stepid + 0x4000, tasks + 0x8000, the check + 0xc000,
 * the master + restart * 613), over the default range and a site's: the
 * ports of a running step do not move with a rewrite. */
struct pinned {
	uint32_t job, step, restart;
	uint16_t master, relay, task, check;                     /* in the default range */
	uint16_t site_master, site_relay, site_task, site_check; /* in 24000-24999 */
	uint16_t hccl, site_hccl; /* HCCL's base after dist_port_split_hccl */
};

static const struct pinned pinned[] = {
        {1u, 0u, 0u, 31761, 24145, 28529, 20913, 24761, 24145, 24529, 24913, 27552, 24680},
        {4242u, 3u, 0u, 26165, 30549, 22933, 27317, 24165, 24549, 24933, 24317, 30624, 24648},
        {123456u, 7u, 2u, 23249, 26407, 30791, 23175, 24249, 24407, 24791, 24175, 30528, 24584},
        {4294967295u, 4294967290u, 1u, 21102, 24873, 29257, 21641, 24102, 24873, 24257, 24641,
         26240, 24936},
        {77u, 4294967291u, 5u, 28657, 29976, 22360, 26744, 24657, 24976, 24360, 24744, 26016,
         24552},
};

static void check_uses(const struct dist_port_range *range, const struct pinned *p, uint16_t master,
                       uint16_t relay, uint16_t task, uint16_t check, uint16_t hccl)
{
	struct dist_port_range lower, upper;
	struct dist_err err = {{0}};

	assert_int_equal(dist_port_first_for(DIST_PORT_MASTER, range, p->job, p->step, p->restart),
	                 master);
	assert_int_equal(dist_port_first_for(DIST_PORT_RELAY, range, p->job, p->step, p->restart),
	                 relay);
	assert_int_equal(dist_port_first_for(DIST_PORT_TASK, range, p->job, p->step, p->restart),
	                 task);
	assert_int_equal(dist_port_first_for(DIST_PORT_CHECK, range, p->job, p->step, p->restart),
	                 check);
	assert_int_equal(dist_port_split_hccl(range, &lower, &upper, &err), 0);
	assert_int_equal(dist_port_hccl_base(&upper, p->job, p->step), hccl);
}

static void test_uses_pinned(void **state)
{
	const struct dist_port_range range = {20000, 31999}, site = {24000, 24999};

	(void)state;
	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		const struct pinned *p = &pinned[i];

		check_uses(&range, p, p->master, p->relay, p->task, p->check, p->hccl);
		check_uses(&site, p, p->site_master, p->site_relay, p->site_task, p->site_check,
		           p->site_hccl);
	}
}

/* Only the master port moves with the attempt. */
static void test_uses_restart_moves_master_only(void **state)
{
	const struct dist_port_range range = {20000, 31999};
	const enum dist_port_use fixed[] = {DIST_PORT_RELAY, DIST_PORT_TASK, DIST_PORT_CHECK};

	(void)state;
	assert_int_not_equal(dist_port_first_for(DIST_PORT_MASTER, &range, 500, 1, 0),
	                     dist_port_first_for(DIST_PORT_MASTER, &range, 500, 1, 1));
	assert_int_equal(dist_port_first_for(DIST_PORT_MASTER, &range, 500, 1, 0),
	                 dist_port_first(&range, 500, 1));
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		assert_int_equal(dist_port_first_for(fixed[i], &range, 500, 1, 0),
		                 dist_port_first_for(fixed[i], &range, 500, 1, 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_range_parse_valid),
	        cmocka_unit_test(test_range_parse_default),
	        cmocka_unit_test(test_range_parse_invalid),
	        cmocka_unit_test(test_first_stays_in_range),
	        cmocka_unit_test(test_first_is_deterministic),
	        cmocka_unit_test(test_first_differs_for_consecutive_steps),
	        cmocka_unit_test(test_first_differs_for_consecutive_jobs),
	        cmocka_unit_test(test_first_differs_for_consecutive_jobs_any_range_size),
	        cmocka_unit_test(test_pick_first_free),
	        cmocka_unit_test(test_pick_skips_taken),
	        cmocka_unit_test(test_pick_wraps_around_range_end),
	        cmocka_unit_test(test_pick_first_outside_range_starts_at_lo),
	        cmocka_unit_test(test_pick_gives_up_after_tries),
	        cmocka_unit_test(test_pick_range_smaller_than_tries),
	        cmocka_unit_test(test_pick_single_port_range),
	        cmocka_unit_test(test_hccl_disjoint_from_master),
	        cmocka_unit_test(test_hccl_split_too_small),
	        cmocka_unit_test(test_hccl_base_spread),
	        cmocka_unit_test(test_uses_pinned),
	        cmocka_unit_test(test_uses_restart_moves_master_only),
	};
	return cmocka_run_group_tests_name("dist_port", tests, NULL, NULL);
}
