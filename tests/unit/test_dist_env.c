/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_env.c: the variable set a mode builds and its export. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist_env.h"

static int setup(void **state)
{
	static struct dist_env env;

	dist_env_init(&env);
	*state = &env;
	return 0;
}

static int teardown(void **state)
{
	dist_env_free(*state);
	return 0;
}

static void test_init_is_empty(void **state)
{
	struct dist_env *env = *state;

	assert_int_equal(env->count, 0);
	assert_null(dist_env_get(env, "RANK"));
}

static void test_set_and_get(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	assert_int_equal(dist_env_set(env, "RANK", "3", &err), 0);
	assert_int_equal(dist_env_set(env, "WORLD_SIZE", "8", &err), 0);
	assert_int_equal(dist_env_set(env, "EMPTY", "", &err), 0);
	assert_int_equal(env->count, 3);
	assert_string_equal(dist_env_get(env, "RANK"), "3");
	assert_string_equal(dist_env_get(env, "WORLD_SIZE"), "8");
	assert_string_equal(dist_env_get(env, "EMPTY"), "");
	assert_null(dist_env_get(env, "RAN"));
	assert_null(dist_env_get(env, "rank"));
}

static void test_set_copies_value(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};
	char value[] = "10.0.0.1";

	assert_int_equal(dist_env_set(env, "MASTER_ADDR", value, &err), 0);
	value[0] = 'X';
	assert_string_equal(dist_env_get(env, "MASTER_ADDR"), "10.0.0.1");
}

static void test_set_replaces(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	assert_int_equal(dist_env_set(env, "A", "1", &err), 0);
	assert_int_equal(dist_env_set(env, "B", "2", &err), 0);
	assert_int_equal(dist_env_set(env, "A", "one", &err), 0);
	assert_int_equal(env->count, 2);
	assert_string_equal(dist_env_get(env, "A"), "one");
	assert_string_equal(dist_env_get(env, "B"), "2");
}

static void test_setf(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	assert_int_equal(dist_env_setf(env, &err, "MASTER_PORT", "%u", 29500u), 0);
	assert_int_equal(dist_env_setf(env, &err, "NCCL_SOCKET_IFNAME", "=%s", "eth0"), 0);
	assert_string_equal(dist_env_get(env, "MASTER_PORT"), "29500");
	assert_string_equal(dist_env_get(env, "NCCL_SOCKET_IFNAME"), "=eth0");
	assert_int_equal(dist_env_setf(env, &err, "MASTER_PORT", "%d", 1234), 0);
	assert_string_equal(dist_env_get(env, "MASTER_PORT"), "1234");
	assert_int_equal(env->count, 2);
}

static void test_unset_keeps_order(void **state)
{
	struct dist_env env;
	struct dist_err err;

	(void)state;
	dist_env_init(&env);
	assert_int_equal(dist_env_set(&env, "A", "1", &err), 0);
	assert_int_equal(dist_env_set(&env, "B", "2", &err), 0);
	assert_int_equal(dist_env_set(&env, "C", "3", &err), 0);
	dist_env_unset(&env, "B");
	dist_env_unset(&env, "MISSING");
	assert_int_equal(env.count, 2);
	assert_string_equal(env.vars[0].name, "A");
	assert_string_equal(env.vars[1].name, "C");
	assert_null(dist_env_get(&env, "B"));
	dist_env_unset(&env, "C");
	dist_env_unset(&env, "A");
	assert_int_equal(env.count, 0);
	dist_env_free(&env);
}

static void test_sort(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};
	const char *names[] = {"RANK", "MASTER_PORT", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR"};
	const char *sorted[] = {"LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"};

	for (size_t i = 0; i < 5; i++)
		assert_int_equal(dist_env_set(env, names[i], names[i], &err), 0);
	dist_env_sort(env);
	assert_int_equal(env->count, 5);
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(env->vars[i].name, sorted[i]);
		/* Values move with their names. */
		assert_string_equal(env->vars[i].value, sorted[i]);
	}
	assert_string_equal(dist_env_get(env, "RANK"), "RANK");
}

/* No cap on the number of variables (the table grows), and replacing one
 * keeps the count. */
static void test_many_variables(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};
	char name[32];

	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "VAR_%d", i);
		assert_int_equal(dist_env_setf(env, &err, name, "v%d", i), 0);
	}
	assert_int_equal(env->count, 1000);
	assert_string_equal(dist_env_get(env, "VAR_999"), "v999");
	assert_int_equal(dist_env_set(env, "VAR_0", "new", &err), 0);
	assert_string_equal(dist_env_get(env, "VAR_0"), "new");
	assert_int_equal(env->count, 1000);
}

/* A formatted value is as long as it needs to be (no fixed buffer). */
static void test_setf_long_value(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};
	static char big[100000];

	memset(big, 'a', sizeof(big) - 1);
	assert_int_equal(dist_env_setf(env, &err, "BIG", "<%s>", big), 0);
	assert_int_equal(strlen(dist_env_get(env, "BIG")), sizeof(big) + 1);
}

static void test_export_keeps_user_values(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	assert_int_equal(setenv("DIST_UNIT_USER_SET", "from-user", 1), 0);
	assert_int_equal(unsetenv("DIST_UNIT_NEW"), 0);
	assert_int_equal(dist_env_set(env, "DIST_UNIT_USER_SET", "from-dist", &err), 0);
	assert_int_equal(dist_env_set(env, "DIST_UNIT_NEW", "from-dist", &err), 0);
	assert_int_equal(dist_env_export(env, &err), 0);
	assert_string_equal(getenv("DIST_UNIT_USER_SET"), "from-user");
	assert_string_equal(getenv("DIST_UNIT_NEW"), "from-dist");
	unsetenv("DIST_UNIT_USER_SET");
	unsetenv("DIST_UNIT_NEW");
}

static void test_export_keeps_user_empty_value(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	/* Set to the empty string still counts as set by the user. */
	assert_int_equal(setenv("DIST_UNIT_EMPTY", "", 1), 0);
	assert_int_equal(dist_env_set(env, "DIST_UNIT_EMPTY", "from-dist", &err), 0);
	assert_int_equal(dist_env_export(env, &err), 0);
	assert_string_equal(getenv("DIST_UNIT_EMPTY"), "");
	unsetenv("DIST_UNIT_EMPTY");
}

static void test_export_error_names_variable(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	/* setenv refuses names with '='. */
	assert_int_equal(dist_env_set(env, "BAD=NAME", "v", &err), 0);
	assert_int_equal(dist_env_export(env, &err), -1);
	assert_string_equal(err.msg, "cannot set BAD=NAME: Invalid argument");
}

static void test_free_empties(void **state)
{
	struct dist_env *env = *state;
	struct dist_err err = {{0}};

	assert_int_equal(dist_env_set(env, "A", "1", &err), 0);
	dist_env_free(env);
	assert_int_equal(env->count, 0);
	assert_null(dist_env_get(env, "A"));
	assert_int_equal(dist_env_set(env, "A", "2", &err), 0);
	assert_string_equal(dist_env_get(env, "A"), "2");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

/* An opted-in replacement wins over the process's own value; the rest do not. */
static void test_export_replace_overrides_only_where_asked(void **state)
{
	struct dist_env env;
	struct dist_err err = {{0}};

	(void)state;
	setenv("DIST_TEST_KEEP", "user", 1);
	setenv("DIST_TEST_REPLACE", "user", 1);
	dist_env_init(&env);
	assert_int_equal(dist_env_set(&env, "DIST_TEST_KEEP", "shim", &err), 0);
	assert_int_equal(dist_env_replace(&env, "DIST_TEST_REPLACE", "shim", &err), 0);
	assert_int_equal(dist_env_export(&env, &err), 0);
	assert_string_equal(getenv("DIST_TEST_KEEP"), "user");
	assert_string_equal(getenv("DIST_TEST_REPLACE"), "shim");
	dist_env_free(&env);
	unsetenv("DIST_TEST_KEEP");
	unsetenv("DIST_TEST_REPLACE");
}

/* A value the program could not be started with is refused before any is
 * set, naming the variable. */
static void test_export_refuses_what_exec_cannot_carry(void **state)
{
	struct dist_env env;
	struct dist_err err = {{0}};
	size_t len = DIST_EXEC_STRING_MAX - sizeof("TF_CONFIG=");
	char *big = malloc(len + 2);

	(void)state;
	assert_non_null(big);
	memset(big, 'x', len + 1);
	big[len] = '\0'; /* "TF_CONFIG=" + value is the longest that fits */
	dist_env_init(&env);
	unsetenv("DIST_TEST_FIRST");
	assert_int_equal(dist_env_set(&env, "DIST_TEST_FIRST", "1", &err), 0);
	assert_int_equal(dist_env_set(&env, "TF_CONFIG", big, &err), 0);
	assert_int_equal(dist_env_export(&env, &err), 0);
	dist_env_free(&env);
	unsetenv("TF_CONFIG");
	unsetenv("DIST_TEST_FIRST");
	big[len] = 'x';
	big[len + 1] = '\0'; /* one byte more */
	dist_env_init(&env);
	assert_int_equal(dist_env_set(&env, "DIST_TEST_FIRST", "1", &err), 0);
	assert_int_equal(dist_env_set(&env, "TF_CONFIG", big, &err), 0);
	assert_int_equal(dist_env_export(&env, &err), -1);
	assert_non_null(strstr(err.msg, "TF_CONFIG would be 131072 bytes, more than the 131071"));
	assert_null(getenv("DIST_TEST_FIRST")); /* nothing set */
	assert_null(getenv("TF_CONFIG"));
	dist_env_free(&env);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_export_replace_overrides_only_where_asked),
	        cmocka_unit_test(test_export_refuses_what_exec_cannot_carry),
	        T(test_init_is_empty),
	        T(test_set_and_get),
	        T(test_set_copies_value),
	        T(test_set_replaces),
	        T(test_setf),
	        T(test_unset_keeps_order),
	        T(test_sort),
	        T(test_many_variables),
	        T(test_setf_long_value),
	        T(test_export_keeps_user_values),
	        T(test_export_keeps_user_empty_value),
	        T(test_export_error_names_variable),
	        T(test_free_empties),
	};

	return cmocka_run_group_tests_name("dist_env", tests, NULL, NULL);
}
