/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_runtime.c: which container runtime lines would
 * start the program without the contract, or without the step's files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_runtime.h"

#define STEP_DIR "/tmp/slurm-dist.job7.step0.Ab12Cd"

static const char *const names[] = {"MASTER_ADDR", "RANK", "WORLD_SIZE",
                                    "OMPI_MCA_orte_default_hostfile"};

/* The check of ARGV (NULL-terminated, at most 15 words) with the files
 * needed or not; MSG gets the message. */
static int check(bool needs_files, char *msg, size_t len, const char *a0, ...)
{
	char *argv[16] = {(char *)a0};
	struct dist_runtime_line line;
	struct dist_err err = {{0}};
	va_list ap;
	size_t n = 1;
	int rc;

	va_start(ap, a0);
	while (n < 15 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	dist_runtime_read(argv, names, 4, STEP_DIR, &line);
	rc = dist_runtime_check(&line, STEP_DIR, needs_files, &err);
	if (msg)
		snprintf(msg, len, "%s", err.msg);
	return rc;
}

static void test_plain_lines_pass(void **state)
{
	(void)state;
	assert_int_equal(check(true, NULL, 0, "ch-run", "/img", "--", "python3", "t.py", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "/usr/bin/ch-run", "-b", "/data", "-w", "/img", "--",
	                       "python3", NULL),
	                 0);
	assert_int_equal(
	        check(true, NULL, 0, "apptainer", "exec", "--nv", "img.sif", "python3", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "python3", "--cleanenv", "-t", NULL), 0);
	/* Not a launch: apptainer's other commands are not read. */
	assert_int_equal(check(true, NULL, 0, "apptainer", "build", "--cleanenv", "x", NULL), 0);
	/* The program's own options are not the runtime's. */
	assert_int_equal(
	        check(true, NULL, 0, "ch-run", "/img", "--", "prog", "--unset-env=*", "-t", NULL),
	        0);
	assert_int_equal(check(true, NULL, 0, "singularity", "run", "img.sif", "-e", "-C", NULL),
	                 0);
}

static void test_dropped_environment_refused(void **state)
{
	char msg[512];

	(void)state;
	assert_int_equal(check(false, msg, sizeof(msg), "ch-run", "--unset-env=*", "/img", "--",
	                       "python3", NULL),
	                 -1);
	assert_non_null(strstr(msg, "ch-run --unset-env=* would start the program without the "
	                            "contract (MASTER_ADDR and the rest)"));
	assert_non_null(strstr(msg, "docs/containers.md"));
	assert_int_equal(
	        check(false, msg, sizeof(msg), "ch-run", "--unset-env", "RANK", "/img", NULL), -1);
	assert_non_null(strstr(msg, "(RANK and the rest)"));
	assert_int_equal(check(false, msg, sizeof(msg), "apptainer", "exec", "--cleanenv", "i.sif",
	                       "python3", NULL),
	                 -1);
	assert_non_null(strstr(msg, "apptainer --cleanenv"));
	assert_int_equal(check(false, NULL, 0, "singularity", "run", "-e", "i.sif", NULL), -1);
	assert_int_equal(check(false, NULL, 0, "apptainer", "shell", "-C", "i.sif", NULL), -1);
}

static void test_patterns_that_spare_the_contract_pass(void **state)
{
	(void)state;
	assert_int_equal(check(false, NULL, 0, "ch-run", "--unset-env=LD_*", "/img", NULL), 0);
	assert_int_equal(check(false, NULL, 0, "ch-run", "--unset-env", "SLURM_*", "/img", NULL),
	                 0);
	/* Variables given back: the user took it over. */
	assert_int_equal(
	        check(false, NULL, 0, "ch-run", "--unset-env=*", "--set-env=/tmp/e", "/img", NULL),
	        0);
	assert_int_equal(check(false, NULL, 0, "apptainer", "exec", "--cleanenv", "--env-file",
	                       "e.env", "i.sif", NULL),
	                 0);
	/* --set-env alone is the image's own file, not the contract. */
	assert_int_equal(
	        check(false, NULL, 0, "ch-run", "--unset-env=*", "--set-env", "/img", NULL), -1);
}

static void test_private_tmp(void **state)
{
	char msg[512];

	(void)state;
	/* Only a mode with files needs the step's directory. */
	assert_int_equal(check(false, NULL, 0, "ch-run", "-t", "/img", NULL), 0);
	assert_int_equal(check(true, msg, sizeof(msg), "ch-run", "-t", "/img", NULL), -1);
	assert_non_null(strstr(msg, "ch-run -t gives the program a /tmp of its own, without the "
	                            "step's directory " STEP_DIR));
	assert_int_equal(check(true, NULL, 0, "ch-run", "--private-tmp", "/img", NULL), -1);
	assert_int_equal(check(true, NULL, 0, "apptainer", "exec", "--contain", "i.sif", NULL), -1);
	/* Bound at its own path: whole, or a directory above it. */
	assert_int_equal(check(true, NULL, 0, "ch-run", "-t", "-b", STEP_DIR, "/img", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "ch-run", "-t", "--bind=/tmp", "/img", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "ch-run", "-t", "-b/tmp/", "/img", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "apptainer", "exec", "-c", "-B", "/data,/tmp:/tmp:ro",
	                       "i.sif", NULL),
	                 0);
	/* Elsewhere inside, or another directory: still hidden. */
	assert_int_equal(check(true, NULL, 0, "ch-run", "-t", "-b", STEP_DIR ":/mnt", "/img", NULL),
	                 -1);
	assert_int_equal(check(true, NULL, 0, "ch-run", "-t", "-b", "/tmp/slurm", "/img", NULL),
	                 -1);
	/* --containall drops the variables too: that is said first. */
	assert_int_equal(check(true, msg, sizeof(msg), "apptainer", "exec", "-C", "i.sif", NULL),
	                 -1);
	assert_non_null(strstr(msg, "without the contract"));
}

/* An option the reader does not know ends the reading: nothing after it
 * is taken for the runtime's. */
static void test_unknown_option_stops_reading(void **state)
{
	(void)state;
	assert_int_equal(check(true, NULL, 0, "ch-run", "--new-option", "-t", "/img", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "apptainer", "exec", "--brand-new", "x", "--cleanenv",
	                       "i.sif", NULL),
	                 0);
	/* A value is not an option: -b's value "-t" is a path. */
	assert_int_equal(check(true, NULL, 0, "ch-run", "-b", "-t", "/img", NULL), 0);
	/* Cut short: no crash, nothing refused. */
	assert_int_equal(check(true, NULL, 0, "ch-run", "-b", NULL), 0);
	assert_int_equal(check(true, NULL, 0, "apptainer", NULL), 0);
}

static void describe(bool needs_files, char *buf, size_t len, char *const *argv)
{
	struct dist_runtime_line line;

	dist_runtime_read(argv, names, 4, STEP_DIR, &line);
	dist_runtime_describe(&line, needs_files, buf, len);
}

/* --explain's line: which container path the step takes. */
static void test_described(void **state)
{
	char buf[256];

	(void)state;
	describe(true, buf, sizeof(buf), (char *[]){"python3", "t.py", NULL});
	assert_string_equal(buf, "none: the program runs on the node (a container it starts "
	                         "itself is not seen)");
	describe(true, buf, sizeof(buf), (char *[]){"ch-run", "/img", "--", "prog", NULL});
	assert_string_equal(buf, "ch-run started by the step: the contract in its environment; "
	                         "the node's /tmp, with the step's directory");
	describe(false, buf, sizeof(buf), (char *[]){"ch-run", "-t", "/img", NULL});
	assert_string_equal(buf, "ch-run started by the step: the contract in its environment; a "
	                         "/tmp of its own (this mode writes no files for the program)");
	describe(true, buf, sizeof(buf),
	         (char *[]){"apptainer", "exec", "-e", "--env-file", "f", "-c", "-B", "/tmp", "i",
	                    NULL});
	assert_string_equal(buf, "apptainer started by the step: the variables its options give "
	                         "back; a /tmp of its own, the step's directory bound inside");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_plain_lines_pass),
	        cmocka_unit_test(test_dropped_environment_refused),
	        cmocka_unit_test(test_patterns_that_spare_the_contract_pass),
	        cmocka_unit_test(test_private_tmp),
	        cmocka_unit_test(test_unknown_option_stops_reading),
	        cmocka_unit_test(test_described),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
