/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for shim/base/module.c: the MODULES list's file names, which
 * the packages install and the doctor names, and a module that cannot be
 * found refused with the file named, not called. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/module.h"

static void test_file_names(void **state)
{
	static const char *const files[MODULE_COUNT] = {
	        [MODULE_PMIX] = "dist-shim-pmix.so",     [MODULE_PMI2] = "dist-shim-pmi2.so",
	        [MODULE_SLURM] = "dist-shim-slurm.so",   [MODULE_HWLOC] = "dist-shim-hwloc.so",
	        [MODULE_VERBS] = "dist-shim-verbs.so",   [MODULE_CRYPTO] = "dist-shim-crypto.so",
	        [MODULE_DOCTOR] = "dist-shim-doctor.so",
	};

	(void)state;
	for (int id = 0; id < MODULE_COUNT; id++)
		assert_string_equal(module_file((enum module_id)id), files[id]);
}

/* The test program has no module beside it nor where an installed shim's
 * are: each accessor says which file it could not load. */
static void test_missing_module_named(void **state)
{
	struct dist_err err = {{0}};
	const char *want = "cannot load the shim's module dist-shim-hwloc.so (";

	(void)state;
	assert_null(module_hwloc(&err));
	assert_memory_equal(err.msg, want, strlen(want));
	assert_non_null(strstr(err.msg, "): reinstall slurm-dist"));
	assert_int_equal(module_load(MODULE_PMIX, &err), -1);
	assert_non_null(strstr(err.msg, "dist-shim-pmix.so"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_file_names),
	        cmocka_unit_test(test_missing_module_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
