/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/mode_mpi.c: when a native launch is refused because
 * its ranks could not find each other. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_mode.h"
#include "many_nodes.h"

static const struct dist_node nodes[] = {
        {.addr = "10.77.0.1", .ntasks = 2, .gpus = 0, .prefix = 24},
        {.addr = "10.77.0.2", .ntasks = 2, .gpus = 0, .prefix = 24, .slurm_index = 1},
};

/* Rank 2 of 4 on two nodes, Open MPI OMPI on the PATH, PMIx or not. */
static struct dist_world world(enum dist_ompi ompi, bool pmix)
{
	struct dist_world w = {
	        .rank = 2,
	        .size = 4,
	        .local_rank = 0,
	        .local_size = 2,
	        .node_rank = 1,
	        .nnodes = 2,
	        .master_addr = "10.77.0.1",
	        .master_port = 24017,
	        .nodes = nodes,
	        .step_dir = "/tmp/slurm-dist.0/job1.step0",
	        .ompi = ompi,
	        .step_has_pmix = pmix,
	};
	return w;
}

static int build(const struct dist_world *w, struct dist_err *err)
{
	struct dist_env env;
	int rc;

	dist_env_init(&env);
	rc = dist_mode_mpi.build_env(w, &env, err);
	dist_env_free(&env);
	return rc;
}

static void test_prrte_without_pmix_is_refused(void **state)
{
	struct dist_world w = world(DIST_OMPI_PRRTE, false);
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(build(&w, &err), -1);
	assert_non_null(strstr(err.msg, "each of the 4 ranks would run alone"));
	assert_non_null(strstr(err.msg, "--dist-launcher"));
}

static void test_prrte_with_pmix_runs(void **state)
{
	struct dist_world w = world(DIST_OMPI_PRRTE, true);
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(build(&w, &err), 0);
}

/* Open MPI 4 (its own PMI2 path aside) and an MPI the shim cannot name
 * (MPICH reads PMI2) are left to the program. */
static void test_others_without_pmix_run(void **state)
{
	struct dist_err err = {{0}};
	struct dist_world orte = world(DIST_OMPI_ORTE, false);
	struct dist_world unknown = world(DIST_OMPI_UNKNOWN, false);

	(void)state;
	assert_int_equal(build(&orte, &err), 0);
	assert_int_equal(build(&unknown, &err), 0);
}

/* One rank alone, or mpirun in the launcher form, needs no PMIx from srun. */
static void test_single_rank_and_launcher_run(void **state)
{
	struct dist_err err = {{0}};
	struct dist_world launcher = world(DIST_OMPI_PRRTE, false);
	struct dist_world single = world(DIST_OMPI_PRRTE, false);
	static const struct dist_node one[] = {{.addr = "10.77.0.1", .ntasks = 1, .prefix = 24}};

	(void)state;
	launcher.launcher = true;
	single.size = 1;
	single.rank = single.node_rank = 0;
	single.nnodes = single.local_size = 1;
	single.nodes = one;
	assert_int_equal(build(&launcher, &err), 0);
	assert_int_equal(build(&single, &err), 0);
}

/* 250 nodes x 8 tasks: the node lists (NODE_IP_SLOT_LIST, VC_WORKER_HOSTS)
 * and the hostfiles outgrow 4 KiB. Such a step once ended with "node list
 * too long"; every list and file now holds every node. */
static void test_250_nodes(void **state)
{
	struct dist_world w = world(DIST_OMPI_UNKNOWN, true);
	struct dist_files files = {.count = 0};
	struct dist_err err = {{0}};
	struct dist_env env;

	(void)state;
	w.nodes = many_nodes(8);
	w.nnodes = MANY_NODES;
	w.size = 2000;
	w.rank = 1003;
	w.node_rank = 125;
	w.local_rank = 3;
	w.local_size = 8;
	dist_env_init(&env);
	assert_int_equal(dist_mode_mpi.build_env(&w, &env, &err), 0);
	assert_int_equal(count_char(dist_env_get(&env, "NODE_IP_SLOT_LIST"), ','), MANY_NODES - 1);
	assert_non_null(strstr(dist_env_get(&env, "VC_WORKER_HOSTS"), ",192.168.101.150"));
	assert_string_equal(dist_env_get(&env, "OMPI_MCA_btl_tcp_if_include"), "192.168.0.0/16");
	dist_env_free(&env);
	assert_int_equal(dist_mode_mpi.build_files(&w, &files, &err), 0);
	assert_int_equal(files.count, 3);
	assert_int_equal(count_char(files.f[0].content, '\n'), MANY_NODES);
	assert_non_null(strstr(files.f[1].content, "192.168.102.149:8\n"));
	/* pdsh's file: the host alone on each line. */
	assert_int_equal(count_char(files.f[2].content, '\n'), MANY_NODES);
	assert_non_null(strstr(files.f[2].content, "\n192.168.102.149\n"));
	assert_null(strchr(files.f[2].content, ' '));
	assert_null(strchr(files.f[2].content, ':'));
	dist_files_free(&files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_250_nodes),
	        cmocka_unit_test(test_prrte_without_pmix_is_refused),
	        cmocka_unit_test(test_prrte_with_pmix_runs),
	        cmocka_unit_test(test_others_without_pmix_run),
	        cmocka_unit_test(test_single_rank_and_launcher_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
