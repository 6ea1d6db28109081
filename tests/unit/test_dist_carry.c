/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_carry.c: the carried shim's descriptors handed
 * from the plugin to dist-shim-enter and the shim, the loader's command line,
 * and the loader an executable names. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dist_carry.h"

static struct dist_carried sample(void)
{
	struct dist_carried c = {.loader = 7, .dir = 8, .libs = {9, 12}, .nlibs = 2};

	snprintf(c.name, sizeof(c.name), "dist-shim");
	return c;
}

static void test_round_trip(void **state)
{
	struct dist_carried c = sample(), back;
	char buf[256];

	(void)state;
	assert_int_equal(dist_carry_format(&c, 4321, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4321:7 8 dist-shim 9 12");
	assert_int_equal(dist_carry_parse(buf, 4321, &back), 0);
	assert_int_equal(back.loader, 7);
	assert_int_equal(back.dir, 8);
	assert_string_equal(back.name, "dist-shim");
	assert_int_equal(back.nlibs, 2);
	assert_int_equal(back.libs[0], 9);
	assert_int_equal(back.libs[1], 12);
	c.nlibs = 0;
	assert_int_equal(dist_carry_format(&c, 4321, buf, sizeof(buf)), 0);
	assert_int_equal(dist_carry_parse(buf, 4321, &back), 0);
	assert_int_equal(back.nlibs, 0);
}

/* Another process's value, or a damaged one, is never taken. */
static void test_refused(void **state)
{
	struct dist_carried c;
	const char *bad[] = {
	        "4322:7 8 dist-shim 9",
	        "7 8 dist-shim 9",
	        "4321:7 8",
	        "4321:7 8 dist-shim x",
	        "4321:-1 8 dist-shim 9",
	        "4321:7 8 a/b 9",
	        "4321:7 8 dist-shim 1 2 3 4 5 6 7 8 9",
	        "4321:7x 8 dist-shim",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(dist_carry_parse(bad[i], 4321, &c), -1);
	assert_int_equal(dist_carry_parse(NULL, 4321, &c), -1);
}

static void test_format_refuses_names(void **state)
{
	struct dist_carried c = sample();
	char buf[256];

	(void)state;
	snprintf(c.name, sizeof(c.name), "dist shim");
	assert_int_equal(dist_carry_format(&c, 1, buf, sizeof(buf)), -1);
	c = sample();
	assert_int_equal(dist_carry_format(&c, 1, buf, 8), -1);
}

static void test_loader_argv(void **state)
{
	struct dist_carried c = sample();
	char *const argv[] = {"/proc/self/fd/5", "--", "python3", "train.py", NULL};
	char **line = dist_carry_loader_argv(&c, 4, argv);
	const char *want[] = {"dist-shim",
	                      "--argv0",
	                      "dist-shim",
	                      "--library-path",
	                      "/proc/self/fd/9:/proc/self/fd/12",
	                      "/proc/self/fd/8/dist-shim",
	                      "--",
	                      "python3",
	                      "train.py"};

	(void)state;
	assert_non_null(line);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(line[i], want[i]);
	assert_null(line[sizeof(want) / sizeof(want[0])]);
	free(line);
}

static void test_name_listed(void **state)
{
	(void)state;
	assert_true(dist_carry_name_listed("PATH MASTER_PORT HOME", "MASTER_PORT"));
	assert_true(dist_carry_name_listed("PATH MASTER_PORT HOME", "PATH"));
	assert_true(dist_carry_name_listed("PATH MASTER_PORT HOME", "HOME"));
	assert_false(dist_carry_name_listed("PATH MASTER_PORT HOME", "MASTER"));
	assert_false(dist_carry_name_listed("PATH MASTER_PORT HOME", "MASTER_PORTS"));
	assert_false(dist_carry_name_listed("PATH MASTER_PORT HOME", "RANK"));
	assert_false(dist_carry_name_listed("", "RANK"));
}

/* This test program's own loader, as its ELF header names it. */
static void test_elf_interp(void **state)
{
	char interp[256];
	int fd = open("/proc/self/exe", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(dist_elf_interp(fd, interp, sizeof(interp)), 0);
	assert_true(interp[0] == '/');
	assert_int_equal(access(interp, X_OK), 0);
	assert_int_equal(dist_elf_interp(fd, interp, 4), -1);
	close(fd);
}

static void test_elf_interp_refuses_text(void **state)
{
	char path[] = "/tmp/test_dist_carry.XXXXXX", interp[256];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(
	        write(fd, "#!/bin/sh\necho not an ELF file at all, long enough for a header\n", 64),
	        64);
	assert_int_equal(dist_elf_interp(fd, interp, sizeof(interp)), -1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_round_trip),
	        cmocka_unit_test(test_refused),
	        cmocka_unit_test(test_format_refuses_names),
	        cmocka_unit_test(test_loader_argv),
	        cmocka_unit_test(test_name_listed),
	        cmocka_unit_test(test_elf_interp),
	        cmocka_unit_test(test_elf_interp_refuses_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
