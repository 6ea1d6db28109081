/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_errfile.c: the error torch's @record recorded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "dist_errfile.h"

static void assert_summary(const char *text, const char *expected)
{
	char *s = dist_errfile_summary(text);

	if (expected)
		assert_string_equal(s, expected);
	else
		assert_null(s);
	free(s);
}

static void test_record_exception_format(void **state)
{
	(void)state;
	/* As ErrorHandler.record_exception writes it (torch 1.13 to 2.x). */
	assert_summary("{\"message\": {\"message\": \"RuntimeError: probe failure on rank 1\", "
	               "\"extraInfo\": {\"py_callstack\": \"Traceback...\\n\", \"timestamp\": "
	               "\"1763880000\"}}}",
	               "RuntimeError: probe failure on rank 1");
	/* Only the first line of a long message. */
	assert_summary("{\"message\": {\"message\": \"ValueError: bad\\nmore\\nlines\"}}",
	               "ValueError: bad");
	/* A launcher's plain string. */
	assert_summary("{\"message\": \"Signal 9 (SIGKILL) received\"}",
	               "Signal 9 (SIGKILL) received");
}

static void test_not_an_error_file(void **state)
{
	(void)state;
	assert_summary(NULL, NULL);
	assert_summary("", NULL);
	assert_summary("not json", NULL);
	assert_summary("{\"message\": {\"message\": \"\"}}", NULL);
	assert_summary("{\"message\": 42}", NULL);
	assert_summary("[\"message\"]", NULL);
	assert_summary("{\"other\": {\"message\": \"x\"}}", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_record_exception_format),
	        cmocka_unit_test(test_not_an_error_file),
	};

	return cmocka_run_group_tests_name("dist_errfile", tests, NULL, NULL);
}
