/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_buf.c: the growing string buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist_buf.h"

static void test_empty(void **state)
{
	struct dist_buf b = DIST_BUF_INIT;
	char *text;

	(void)state;
	assert_string_equal(dist_buf_str(&b), "");
	text = dist_buf_take(&b);
	assert_string_equal(text, "");
	free(text);
}

static void test_appends_grow(void **state)
{
	struct dist_buf b = DIST_BUF_INIT;
	char *text;

	(void)state;
	for (int i = 0; i < 10000; i++)
		assert_int_equal(dist_buf_appendf(&b, "%s%d", i ? "," : "", i), 0);
	assert_int_equal(b.len, strlen(b.data));
	assert_true(b.len > 4096);
	assert_memory_equal(b.data, "0,1,2,", 6);
	assert_non_null(strstr(b.data, ",9999"));
	assert_int_equal(dist_buf_append(&b, "!"), 0);
	assert_int_equal(dist_buf_appendn(&b, "xyz", 2), 0);
	assert_string_equal(b.data + b.len - 3, "!xy");
	text = dist_buf_take(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_non_null(strstr(text, "9999!xy"));
	free(text);
}

/* One formatted value longer than whatever was reserved so far. */
static void test_long_format(void **state)
{
	struct dist_buf b = DIST_BUF_INIT;
	static char big[70000];

	(void)state;
	memset(big, 'b', sizeof(big) - 1);
	assert_int_equal(dist_buf_append(&b, "<"), 0);
	assert_int_equal(dist_buf_appendf(&b, "%s>", big), 0);
	assert_int_equal(b.len, sizeof(big) + 1);
	assert_int_equal(b.data[b.len - 1], '>');
	dist_buf_free(&b);
}

static void test_reset_keeps_memory(void **state)
{
	struct dist_buf b = DIST_BUF_INIT;
	char *data;

	(void)state;
	assert_int_equal(dist_buf_append(&b, "hello"), 0);
	data = b.data;
	dist_buf_reset(&b);
	assert_string_equal(dist_buf_str(&b), "");
	assert_int_equal(dist_buf_append(&b, "x"), 0);
	assert_ptr_equal(b.data, data);
	assert_string_equal(dist_buf_str(&b), "x");
	dist_buf_free(&b);
}

/* After a reserve, appends up to it do not move the text. */
static void test_reserve(void **state)
{
	struct dist_buf b = DIST_BUF_INIT;
	char *data;

	(void)state;
	assert_int_equal(dist_buf_reserve(&b, 10000), 0);
	data = b.data;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(dist_buf_append(&b, "0123456789"), 0);
	assert_ptr_equal(b.data, data);
	assert_int_equal(b.len, 10000);
	dist_buf_free(&b);
}

/* A failure is sticky and take then gives NULL. */
static void test_failed_is_sticky(void **state)
{
	struct dist_buf b = DIST_BUF_INIT;

	(void)state;
	assert_int_equal(dist_buf_append(&b, "ok"), 0);
	b.failed = true;
	assert_int_equal(dist_buf_append(&b, "more"), -1);
	assert_int_equal(dist_buf_appendf(&b, "%d", 1), -1);
	assert_string_equal(dist_buf_str(&b), "ok");
	assert_null(dist_buf_take(&b));
	assert_null(b.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_empty),       cmocka_unit_test(test_appends_grow),
	        cmocka_unit_test(test_long_format), cmocka_unit_test(test_reset_keeps_memory),
	        cmocka_unit_test(test_reserve),     cmocka_unit_test(test_failed_is_sticky),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
