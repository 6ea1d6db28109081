/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The option table (core/dist_options.h): every row is whole and no two rows
 * share a name, a variable or a short option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dist_options.h"

static void test_rows_are_whole(void **state)
{
	(void)state;
	for (int id = 0; id < DIST_OPT_COUNT; id++) {
		const struct dist_opt *o = &dist_opts[id];

		assert_non_null(o->spank);
		assert_int_equal(strncmp(o->spank, "dist-", 5), 0);
		assert_string_equal(o->spank_flag + 2, o->spank);
		assert_string_equal(o->shim_flag + 2, o->shim);
		assert_int_equal(strncmp(o->env, "DIST_SHIM_", 10), 0);
		assert_true(o->shim_short != 0);
		/* A value has a parser and room; a flag has neither. */
		assert_true(dist_opt_is_flag(o) ? o->check == NULL && o->len == 0
		                                : o->check != NULL && o->len > 1);
		assert_true(o->help != NULL || id == DIST_OPT_MODE);
	}
}

static void test_rows_are_distinct(void **state)
{
	(void)state;
	for (int a = 0; a < DIST_OPT_COUNT; a++)
		for (int b = a + 1; b < DIST_OPT_COUNT; b++) {
			assert_string_not_equal(dist_opts[a].spank, dist_opts[b].spank);
			assert_string_not_equal(dist_opts[a].shim, dist_opts[b].shim);
			assert_string_not_equal(dist_opts[a].env, dist_opts[b].env);
			assert_int_not_equal(dist_opts[a].shim_short, dist_opts[b].shim_short);
		}
}

/* The variables the plugin always set keep their names (the shim of one
 * build may meet the plugin of the same build only, but the docs and the
 * integration tests name them). */
static void test_known_variables(void **state)
{
	(void)state;
	assert_string_equal(dist_opts[DIST_OPT_MODE].env, "DIST_SHIM_MODE");
	assert_string_equal(dist_opts[DIST_OPT_NPU_ISOLATE].env, "DIST_SHIM_NPU_ISOLATE");
	assert_string_equal(dist_opts[DIST_OPT_CHECK].spank_flag, "--dist-check");
	assert_string_equal(dist_opts[DIST_OPT_PS].shim_flag, "--ps");
}

static void test_checks_name_the_option(void **state)
{
	struct dist_err err;

	(void)state;
	assert_int_equal(dist_opts[DIST_OPT_PS].check("--dist-ps", "2", &err), 0);
	assert_int_not_equal(dist_opts[DIST_OPT_PS].check("--dist-ps", "x", &err), 0);
	assert_non_null(strstr(err.msg, "--dist-ps"));
	assert_int_not_equal(dist_opts[DIST_OPT_BIND].check("--bind", "bogus", &err), 0);
	assert_non_null(strstr(err.msg, "--bind"));
	assert_int_not_equal(dist_opts[DIST_OPT_MODE].check("--dist-mode", "bogus", &err), 0);
	assert_int_equal(dist_opts[DIST_OPT_CHECK].check("--dist-check", "net", &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_rows_are_whole),
	        cmocka_unit_test(test_rows_are_distinct),
	        cmocka_unit_test(test_known_variables),
	        cmocka_unit_test(test_checks_name_the_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
