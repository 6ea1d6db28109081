/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for shim/doctor/plugstack.c: finding spank_dist's line in a
 * plugstack.conf and the files its include lines name. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <ftw.h>

#include "doctor/plugstack.h"

static char dir[] = "/tmp/test_doctor_plugstack.XXXXXX";

static void write_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int find(const char *name, const char *plugindir, struct plugstack_line *line,
                struct dist_err *err)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return plugstack_find(path, plugindir, line, err);
}

static void test_direct_line(void **state)
{
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	write_file("direct.conf", "# comment\n\noptional /x/other.so a=b\n"
	                          "required /opt/lib/spank_dist.so  port_range=24000-24999\t"
	                          "timeout=5 # trailing comment\n");
	assert_int_equal(find("direct.conf", NULL, &line, &err), 1);
	assert_string_equal(line.path, "/opt/lib/spank_dist.so");
	assert_int_equal(line.nargs, 2);
	assert_string_equal(line.args[0], "port_range=24000-24999");
	assert_string_equal(line.args[1], "timeout=5");
	assert_non_null(strstr(line.file, "direct.conf"));
	assert_int_equal(line.lineno, 4);
	assert_string_equal(line.text, "required /opt/lib/spank_dist.so  port_range=24000-24999\t"
	                               "timeout=5");
	assert_false(line.optional);
	plugstack_line_free(&line);
}

/* An optional line is found, and said to be optional, with its file,
 * number and text: the doctor warns naming it. */
static void test_optional_line(void **state)
{
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	write_file("optional.conf", "optional /x/other.so\n\n"
	                            "optional\t/usr/lib/slurm/spank_dist.so timeout=5  # why\n");
	assert_int_equal(find("optional.conf", NULL, &line, &err), 1);
	assert_true(line.optional);
	assert_int_equal(line.lineno, 3);
	assert_string_equal(line.text, "optional\t/usr/lib/slurm/spank_dist.so timeout=5");
	assert_non_null(strstr(line.file, "optional.conf"));
	plugstack_line_free(&line);
}

static void test_include_glob_relative(void **state)
{
	char sub[PATH_MAX];
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	snprintf(sub, sizeof(sub), "%s/d", dir);
	mkdir(sub, 0700);
	write_file("d/a.conf", "optional /x/other.so\n");
	write_file("d/b.conf", "required /usr/lib/slurm/spank_dist.so\n");
	write_file("top.conf", "include d/*.conf\n");
	assert_int_equal(find("top.conf", NULL, &line, &err), 1);
	assert_string_equal(line.path, "/usr/lib/slurm/spank_dist.so");
	assert_int_equal(line.nargs, 0);
	assert_non_null(strstr(line.file, "d/b.conf"));
	plugstack_line_free(&line);
}

/* A bare name is looked up in PluginDir, as Slurm does. */
static void test_bare_name_in_plugindir(void **state)
{
	char plugindir[PATH_MAX], expect[PATH_MAX + 32];
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	write_file("spank_dist.so", "");
	write_file("bare.conf", "required spank_dist.so\n");
	snprintf(plugindir, sizeof(plugindir), "/nonexistent:%s", dir);
	snprintf(expect, sizeof(expect), "%s/spank_dist.so", dir);
	assert_int_equal(find("bare.conf", plugindir, &line, &err), 1);
	assert_string_equal(line.path, expect);
	plugstack_line_free(&line);
}

/* The container plugins around ours, by name, in the order Slurm reads. */
static void test_container_plugins(void **state)
{
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	write_file("cont-inc.conf", "required /opt/lib/spank_pyxis.so\n");
	write_file("cont.conf", "required /x/other.so\ninclude cont-inc.conf\n"
	                        "required /opt/lib/spank_dist.so\nrequired /opt/lib/spank_dist.so\n"
	                        "optional shifter_slurm.so\n");
	assert_int_equal(find("cont.conf", NULL, &line, &err), 1);
	assert_int_equal(line.lineno, 3);
	assert_string_equal(line.container_before, "/opt/lib/spank_pyxis.so");
	assert_string_equal(line.container_after, "shifter_slurm.so");
	plugstack_line_free(&line);
	write_file("cont2.conf", "required /opt/lib/spank_dist.so\nrequired spank_pyxis.so\n");
	assert_int_equal(find("cont2.conf", NULL, &line, &err), 1);
	assert_null(line.container_before);
	assert_string_equal(line.container_after, "spank_pyxis.so");
	plugstack_line_free(&line);
	/* No line of ours: nothing is handed back, the plugins noted are freed. */
	write_file("cont3.conf", "required spank_pyxis.so\n");
	assert_int_equal(find("cont3.conf", NULL, &line, &err), 0);
}

static void test_not_loaded(void **state)
{
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	write_file("none.conf", "# required /usr/lib/slurm/spank_dist.so\n"
	                        "required /x/spank_dist.so.bak\ninclude nothing/*.conf\n");
	assert_int_equal(find("none.conf", NULL, &line, &err), 0);
}

static void test_missing_and_loop(void **state)
{
	struct plugstack_line line;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(find("absent.conf", NULL, &line, &err), -1);
	assert_non_null(strstr(err.msg, "absent.conf"));
	write_file("loop.conf", "include loop.conf\n");
	assert_int_equal(find("loop.conf", NULL, &line, &err), -1);
	assert_non_null(strstr(err.msg, "nested"));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_direct_line),
	        cmocka_unit_test(test_optional_line),
	        cmocka_unit_test(test_include_glob_relative),
	        cmocka_unit_test(test_bare_name_in_plugindir),
	        cmocka_unit_test(test_container_plugins),
	        cmocka_unit_test(test_not_loaded),
	        cmocka_unit_test(test_missing_and_loop),
	};
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	return rc;
}
