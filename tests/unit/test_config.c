/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for spank/config.c: plugstack.conf arguments. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"

#define DEFAULT_SHIM "/usr/bin/dist-shim"

/* Parses the NULL-terminated ARGS into CFG; returns dist_config_parse's result. */
static int parse(struct dist_config *cfg, struct dist_err *err, char **args)
{
	int ac = 0;

	while (args[ac])
		ac++;
	memset(cfg, 0x55, sizeof(*cfg));
	return dist_config_parse(ac, args, DEFAULT_SHIM, cfg, err);
}

static void test_defaults(void **state)
{
	char *args[] = {NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), 0);
	assert_string_equal(cfg.shim, DEFAULT_SHIM);
	assert_string_equal(cfg.port_range, "20000-31999");
	assert_string_equal(cfg.timeout, "");
	assert_false(cfg.carry_always);
}

static void test_all_settings(void **state)
{
	char *args[] = {"shim=/opt/dist/bin/dist-shim", "port_range=40000-40999", "timeout=120",
	                NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), 0);
	assert_string_equal(cfg.shim, "/opt/dist/bin/dist-shim");
	assert_string_equal(cfg.port_range, "40000-40999");
	assert_string_equal(cfg.timeout, "120");
}

static void test_later_setting_wins(void **state)
{
	char *args[] = {"timeout=5", "timeout=7", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), 0);
	assert_string_equal(cfg.timeout, "7");
}

static void test_shim_relative_rejected(void **state)
{
	char *args[] = {"shim=bin/dist-shim", NULL};
	char *empty[] = {"shim=", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), -1);
	assert_string_equal(err.msg, "shim=bin/dist-shim: expected an absolute path");
	assert_int_equal(parse(&cfg, &err, empty), -1);
	assert_string_equal(err.msg, "shim=: expected an absolute path");
}

static void test_shim_too_long_rejected(void **state)
{
	static char arg[PATH_MAX + 16];
	char *args[] = {arg, NULL}, expected[128];
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	/* "shim=" then "/" and PATH_MAX more characters: one too many for cfg.shim. */
	memcpy(arg, "shim=/", 6);
	memset(arg + 6, 'a', PATH_MAX - 1);
	assert_int_equal(parse(&cfg, &err, args), -1);
	snprintf(expected, sizeof(expected), "shim=: path too long (over %d bytes)", PATH_MAX - 1);
	assert_string_equal(err.msg, expected);
}

static void test_port_range_normalised(void **state)
{
	char *args[] = {"port_range=01024-2000", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), 0);
	assert_string_equal(cfg.port_range, "1024-2000");
}

static void test_port_range_invalid(void **state)
{
	char *reversed[] = {"port_range=30000-20000", NULL};
	char *low[] = {"port_range=80-8080", NULL};
	char *garbage[] = {"port_range=lots", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, reversed), -1);
	assert_string_equal(err.msg, "invalid port range '30000-20000': expected LO-HI with 1024 "
	                             "<= LO <= HI <= 65535, e.g. 20000-31999");
	assert_int_equal(parse(&cfg, &err, low), -1);
	assert_string_equal(err.msg, "invalid port range '80-8080': expected LO-HI with 1024 <= "
	                             "LO <= HI <= 65535, e.g. 20000-31999");
	assert_int_equal(parse(&cfg, &err, garbage), -1);
	assert_string_equal(err.msg, "invalid port range 'lots': expected LO-HI with 1024 <= LO "
	                             "<= HI <= 65535, e.g. 20000-31999");
}

static void test_timeout_valid(void **state)
{
	char *one[] = {"timeout=1", NULL};
	char *day[] = {"timeout=86400", NULL};
	char *padded[] = {"timeout=0030", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, one), 0);
	assert_string_equal(cfg.timeout, "1");
	assert_int_equal(parse(&cfg, &err, day), 0);
	assert_string_equal(cfg.timeout, "86400");
	assert_int_equal(parse(&cfg, &err, padded), 0);
	assert_string_equal(cfg.timeout, "30");
}

static void assert_timeout_rejected(const char *value)
{
	char arg[64], expected[128];
	char *args[] = {arg, NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	snprintf(arg, sizeof(arg), "timeout=%s", value);
	snprintf(expected, sizeof(expected), "timeout=%s: expected seconds, 1 to 86400", value);
	assert_int_equal(parse(&cfg, &err, args), -1);
	assert_string_equal(err.msg, expected);
}

static void test_timeout_invalid(void **state)
{
	(void)state;
	assert_timeout_rejected("0");
	assert_timeout_rejected("86401");
	assert_timeout_rejected("abc");
	assert_timeout_rejected("30s");
	assert_timeout_rejected("-5");
	assert_timeout_rejected("");
}

static void test_carry_shim(void **state)
{
	char *always[] = {"carry_shim=always", NULL}, *automatic[] = {"carry_shim=auto", NULL};
	char *bad[] = {"carry_shim=yes", NULL},
	     *back[] = {"carry_shim=always", "carry_shim=auto", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, always), 0);
	assert_true(cfg.carry_always);
	assert_int_equal(parse(&cfg, &err, automatic), 0);
	assert_false(cfg.carry_always);
	assert_int_equal(parse(&cfg, &err, back), 0);
	assert_false(cfg.carry_always);
	assert_int_equal(parse(&cfg, &err, bad), -1);
	assert_string_equal(err.msg, "carry_shim=yes: expected auto or always");
}

static void test_unknown_key_rejected(void **state)
{
	char *args[] = {"timeout=10", "colour=blue", NULL};
	char *prefix[] = {"shi=/usr/bin/x", NULL};
	char *longer[] = {"shims=/usr/bin/x", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), -1);
	assert_string_equal(err.msg, "unknown plugstack argument 'colour' (known: shim, "
	                             "port_range, timeout, carry_shim)");
	assert_int_equal(parse(&cfg, &err, prefix), -1);
	assert_string_equal(
	        err.msg,
	        "unknown plugstack argument 'shi' (known: shim, port_range, timeout, carry_shim)");
	assert_int_equal(parse(&cfg, &err, longer), -1);
	assert_string_equal(err.msg, "unknown plugstack argument 'shims' (known: shim, port_range, "
	                             "timeout, carry_shim)");
}

static void test_argument_without_equals_rejected(void **state)
{
	char *args[] = {"shim", NULL};
	struct dist_config cfg;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(parse(&cfg, &err, args), -1);
	assert_string_equal(err.msg, "plugstack argument 'shim': expected key=value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_defaults),
	        cmocka_unit_test(test_all_settings),
	        cmocka_unit_test(test_later_setting_wins),
	        cmocka_unit_test(test_shim_relative_rejected),
	        cmocka_unit_test(test_shim_too_long_rejected),
	        cmocka_unit_test(test_port_range_normalised),
	        cmocka_unit_test(test_port_range_invalid),
	        cmocka_unit_test(test_timeout_valid),
	        cmocka_unit_test(test_timeout_invalid),
	        cmocka_unit_test(test_carry_shim),
	        cmocka_unit_test(test_unknown_key_rejected),
	        cmocka_unit_test(test_argument_without_equals_rejected),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
