/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_launchline.c: the -np an Open MPI launch line
 * asks for, read up to its program, and the refusal of a line that cannot
 * fit the step's slots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_launchline.h"

#define LINE(...) ((char *[]){__VA_ARGS__, NULL})

static struct dist_launch_line read_line(char *const *argv)
{
	struct dist_launch_line line;

	dist_launch_line_read(argv, &line);
	return line;
}

static void test_np_forms(void **state)
{
	(void)state;
	assert_int_equal(read_line(LINE("mpirun", "-np", "6", "prog")).np, 6);
	assert_int_equal(read_line(LINE("/usr/bin/mpiexec", "-n", "4", "prog")).np, 4);
	assert_int_equal(read_line(LINE("prterun", "--np=12", "prog")).np, 12);
	assert_int_equal(read_line(LINE("mpirun.openmpi", "-c", "2", "prog")).np, 2);
	assert_int_equal(read_line(LINE("mpirun", "prog")).np, 0);
}

/* TI-ONE's and ModelArts' lines: options before -np, values skipped. */
static void test_options_before_np(void **state)
{
	struct dist_launch_line line = read_line(LINE(
	        "mpirun", "--allow-run-as-root", "-x", "NCCL_DEBUG=INFO", "--mca", "btl", "^openib",
	        "-bind-to", "none", "-map-by", "slot", "-np", "16", "python3", "train.py"));

	(void)state;
	assert_true(line.ompi_launcher);
	assert_int_equal(line.np, 16);
	assert_false(line.oversubscribe);
	assert_false(line.own_hosts);
}

/* The program's own options are never the launcher's. */
static void test_stops_at_program(void **state)
{
	(void)state;
	assert_int_equal(read_line(LINE("mpirun", "python3", "prog.py", "-np", "99")).np, 0);
	assert_int_equal(read_line(LINE("mpirun", "--", "prog", "-n", "99")).np, 0);
	/* An unknown option with a value: the reading ends there. */
	assert_int_equal(read_line(LINE("mpirun", "--novel", "v", "-np", "99", "prog")).np, 0);
	/* Not a count. */
	assert_int_equal(read_line(LINE("mpirun", "-np", "six", "prog")).np, 0);
	assert_int_equal(read_line(LINE("mpirun", "-np", "0", "prog")).np, 0);
	assert_int_equal(read_line(LINE("mpirun", "-np")).np, 0);
}

static void test_oversubscribe_and_hosts(void **state)
{
	(void)state;
	assert_true(read_line(LINE("mpirun", "--oversubscribe", "-np", "9", "p")).oversubscribe);
	assert_true(read_line(LINE("mpirun", "--map-by", "node:OVERSUBSCRIBE", "-np", "9", "p"))
	                    .oversubscribe);
	assert_true(read_line(LINE("mpirun", "-H", "a:2,b:2", "-np", "4", "p")).own_hosts);
	assert_true(read_line(LINE("mpirun", "--hostfile=/tmp/h", "-np", "4", "p")).own_hosts);
}

/* MPICH's Hydra and other programs are not read. */
static void test_other_programs(void **state)
{
	(void)state;
	assert_false(read_line(LINE("mpiexec.hydra", "-n", "9", "p")).ompi_launcher);
	assert_false(read_line(LINE("mpiexec.mpich", "-n", "9", "p")).ompi_launcher);
	assert_false(read_line(LINE("python3", "-np", "9")).ompi_launcher);
	assert_int_equal(read_line(LINE("horovodrun", "-np", "9", "p")).np, 0);
}

/* Three nodes of the launcher form, one task each: 2, 4 and no GPUs. */
static const struct dist_node nodes[] = {
        {.addr = "10.77.0.1", .ntasks = 1, .gpus = 2},
        {.addr = "10.77.0.2", .ntasks = 1, .gpus = 4, .slurm_index = 1},
        {.addr = "10.77.0.3", .ntasks = 1, .gpus = 0, .slurm_index = 2},
};

static struct dist_world launcher_world(enum dist_ompi ompi)
{
	struct dist_world w = {.size = 3, .nnodes = 3, .nodes = nodes, .launcher = true};

	w.ompi = ompi;
	return w;
}

static void test_slots(void **state)
{
	struct dist_world w = launcher_world(DIST_OMPI_ORTE);

	(void)state;
	assert_int_equal(dist_world_slots(&w), 7);
}

static void test_check(void **state)
{
	struct dist_world orte = launcher_world(DIST_OMPI_ORTE);
	struct dist_world unknown = launcher_world(DIST_OMPI_UNKNOWN);
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_launch_line_check(LINE("mpirun", "-np", "7", "p"), &orte, &err), 0);
	assert_int_equal(dist_launch_line_check(LINE("mpirun", "-np", "8", "p"), &orte, &err), -1);
	assert_string_equal(err.msg,
	                    "mpirun -np 8 asks for more processes than the 7 slots of the step's 3 "
	                    "nodes (a node's slots: its GPUs, or its tasks when more); lower -np, "
	                    "ask Slurm for more GPUs or tasks per node, or add --oversubscribe");
	assert_int_equal(dist_launch_line_check(LINE("mpirun", "--oversubscribe", "-np", "8", "p"),
	                                        &orte, &err),
	                 0);
	assert_int_equal(
	        dist_launch_line_check(LINE("mpirun", "-H", "a:9", "-np", "8", "p"), &orte, &err),
	        0);
	/* No Open MPI on the PATH: the mpirun is another MPI's. */
	assert_int_equal(dist_launch_line_check(LINE("mpirun", "-np", "8", "p"), &unknown, &err),
	                 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_np_forms),
	        cmocka_unit_test(test_options_before_np),
	        cmocka_unit_test(test_stops_at_program),
	        cmocka_unit_test(test_oversubscribe_and_hosts),
	        cmocka_unit_test(test_other_programs),
	        cmocka_unit_test(test_slots),
	        cmocka_unit_test(test_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
