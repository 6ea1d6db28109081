/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_mode.c: --dist-mode values and their validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dist_mode.h"

static const struct dist_mode *const poison = (const struct dist_mode *)&poison;

static void test_lookup_none(void **state)
{
	const struct dist_mode *mode = poison;

	(void)state;
	assert_int_equal(dist_mode_lookup("none", &mode), DIST_MODE_OFF);
	assert_null(mode);
}

static void test_lookup_ddp(void **state)
{
	const struct dist_mode *mode = NULL;

	(void)state;
	assert_int_equal(dist_mode_lookup("ddp", &mode), DIST_MODE_AVAILABLE);
	assert_ptr_equal(mode, &dist_mode_ddp);
	assert_string_equal(mode->name, "ddp");
	assert_non_null(mode->build_env);
	/* The caller may not want the mode itself. */
	assert_int_equal(dist_mode_lookup("ddp", NULL), DIST_MODE_AVAILABLE);
}

static void test_lookup_planned(void **state)
{
	const char *planned[] = {"ray"};

	(void)state;
	for (size_t i = 0; i < 1; i++) {
		const struct dist_mode *mode = poison;

		assert_int_equal(dist_mode_lookup(planned[i], &mode), DIST_MODE_PLANNED);
		assert_null(mode);
	}
}

static void test_lookup_mpi(void **state)
{
	const struct dist_mode *mode = poison;

	(void)state;
	assert_int_equal(dist_mode_lookup("mpi", &mode), DIST_MODE_AVAILABLE);
	assert_ptr_equal(mode, &dist_mode_mpi);
	assert_true(mode->needs_nodes);
	assert_non_null(mode->build_files);
}

static void test_lookup_unknown(void **state)
{
	const struct dist_mode *mode = poison;

	(void)state;
	assert_int_equal(dist_mode_lookup("bogus", &mode), DIST_MODE_UNKNOWN);
	assert_null(mode);
	mode = poison;
	assert_int_equal(dist_mode_lookup(NULL, &mode), DIST_MODE_UNKNOWN);
	assert_null(mode);
	assert_int_equal(dist_mode_lookup("", NULL), DIST_MODE_UNKNOWN);
	assert_int_equal(dist_mode_lookup("DDP", NULL), DIST_MODE_UNKNOWN);
	assert_int_equal(dist_mode_lookup("ddp ", NULL), DIST_MODE_UNKNOWN);
}

static void test_choices(void **state)
{
	(void)state;
	assert_string_equal(dist_mode_choices(), "none|ddp|mpi|ps|ascend");
}

static void test_validate_accepts(void **state)
{
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_mode_validate("none", &err), 0);
	assert_int_equal(dist_mode_validate("ddp", &err), 0);
	assert_string_equal(err.msg, "");
}

static void test_validate_rejects_naming_valid_modes(void **state)
{
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_mode_validate("bogus", &err), -1);
	assert_string_equal(err.msg,
	                    "invalid --dist-mode 'bogus': valid modes are none|ddp|mpi|ps|ascend");
	assert_int_equal(dist_mode_validate("ray", &err), -1);
	assert_string_equal(err.msg,
	                    "invalid --dist-mode 'ray': valid modes are none|ddp|mpi|ps|ascend");
	assert_int_equal(dist_mode_validate(NULL, &err), -1);
	assert_string_equal(err.msg,
	                    "invalid --dist-mode '': valid modes are none|ddp|mpi|ps|ascend");
}

/* The versions Slurm's PMIx servers announced in PMIX_VERSION on the test
 * clusters (22.05: 4.2.2rc2, 24.11: 5.0.7a1), and what is not a version. */
static void test_pmix_shareable_from_5_on(void **state)
{
	(void)state;
	assert_true(dist_pmix_shareable("5.0.7a1"));
	assert_true(dist_pmix_shareable("5.0.7"));
	assert_true(dist_pmix_shareable("6.0.0"));
	assert_true(dist_pmix_shareable("10.1"));
	assert_false(dist_pmix_shareable("4.2.2rc2"));
	assert_false(dist_pmix_shareable("3.2.3"));
	assert_false(dist_pmix_shareable("4"));
	assert_false(dist_pmix_shareable("5"));
	assert_false(dist_pmix_shareable("v5.0.7"));
	assert_false(dist_pmix_shareable("-5.0"));
	assert_false(dist_pmix_shareable(" 5.0"));
	assert_false(dist_pmix_shareable(""));
	assert_false(dist_pmix_shareable(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_lookup_none),
	        cmocka_unit_test(test_lookup_ddp),
	        cmocka_unit_test(test_lookup_planned),
	        cmocka_unit_test(test_lookup_mpi),
	        cmocka_unit_test(test_lookup_unknown),
	        cmocka_unit_test(test_choices),
	        cmocka_unit_test(test_validate_accepts),
	        cmocka_unit_test(test_validate_rejects_naming_valid_modes),
	        cmocka_unit_test(test_pmix_shareable_from_5_on),
	};

	return cmocka_run_group_tests_name("dist_mode", tests, NULL, NULL);
}
