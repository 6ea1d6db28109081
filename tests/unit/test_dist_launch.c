/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_launch.c: which steps are MPI launchers'
 * daemons, and that the launcher form hands on only what is the same for
 * every process a launcher starts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_launch.h"

static void test_mpi_daemons_recognised(void **state)
{
	(void)state;
	static const char *const daemons[] = {
	        "orted",
	        "/usr/bin/orted",
	        "prted",
	        "/opt/ompi5/bin/prted",
	        "prte",
	        "hydra_pmi_proxy",
	        "/usr/bin/hydra_pmi_proxy",
	        "pmi_proxy",
	        "/opt/intel/mpi/bin/pmi_proxy",
	};

	for (size_t i = 0; i < sizeof(daemons) / sizeof(daemons[0]); i++)
		if (!dist_is_mpi_daemon(daemons[i]))
			fail_msg("%s not recognised as an MPI daemon", daemons[i]);
}

static void test_other_programs_not_daemons(void **state)
{
	(void)state;
	static const char *const others[] = {
	        "mpirun",          "prterun",  "orterun", "python3",
	        "/usr/bin/orted/", "orted.sh", "xorted",  "prted-wrapper",
	        "/orted/python",   "",         "/",       "ORTED",
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		if (dist_is_mpi_daemon(others[i]))
			fail_msg("'%s' taken for an MPI daemon", others[i]);
	assert_false(dist_is_mpi_daemon(NULL));
}

static const struct dist_node nodes[] = {
        {"10.77.0.1", 1, 4, 24, 0},
        {"10.77.0.2", 1, 4, 24, 1},
        {"10.77.0.3", 1, 4, 24, 2},
};

/* The task of the launcher step on NODE (one task per node), named as each
 * node names its interface. */
static struct dist_world launcher_task(uint32_t node, bool launcher)
{
	static const char *const ifnames[] = {"eth0", "ens5", "enp1s0"};
	struct dist_world w = {
	        .rank = node,
	        .size = 3,
	        .local_rank = 0,
	        .local_size = 1,
	        .node_rank = node,
	        .nnodes = 3,
	        .master_addr = "10.77.0.1",
	        .master_port = 24017,
	        .local_gpus = 4,
	        .nodes = nodes,
	        .step_dir = "/tmp/slurm-dist.1000/job42.step0",
	        .launcher = launcher,
	        .ompi = DIST_OMPI_ORTE,
	};

	snprintf(w.master_ifname, sizeof(w.master_ifname), "%s", ifnames[node]);
	return w;
}

static void build(const struct dist_mode *mode, const char *compat, const struct dist_world *w,
                  struct dist_env *env, size_t *nargs)
{
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	size_t nprofiles = 0;
	struct dist_err err = {{0}};
	char **args = NULL;

	dist_env_init(env);
	if ((compat && (dist_profiles_parse(compat, profiles, &nprofiles, &err) ||
	                dist_profiles_select_mode(profiles, nprofiles, mode->name, &err))) ||
	    dist_contract_env(mode, profiles, nprofiles, w, env, &err) ||
	    dist_profiles_build_args(profiles, nprofiles, w, &args, nargs, &err))
		fail_msg("%s with %s: %s", mode->name, compat ? compat : "no profile", err.msg);
	dist_argv_free(args);
	dist_env_sort(env);
}

/* HYDRA_IFACE names the launcher node's own interface: only mpiexec reads
 * it, on that node, and hands the proxies the interface's address. */
static bool launcher_node_var(const char *name)
{
	return strcmp(name, "HYDRA_IFACE") == 0;
}

/* Same names, same values, same order (both sorted); with SKIP_OWN, the
 * launcher node's own variables are compared by name only. */
static bool same_env_but(const struct dist_env *a, const struct dist_env *b, bool skip_own)
{
	if (a->count != b->count)
		return false;
	for (size_t i = 0; i < a->count; i++)
		if (strcmp(a->vars[i].name, b->vars[i].name) != 0 ||
		    (!(skip_own && launcher_node_var(a->vars[i].name)) &&
		     strcmp(a->vars[i].value, b->vars[i].value) != 0))
			return false;
	return true;
}

static bool same_env(const struct dist_env *a, const struct dist_env *b)
{
	return same_env_but(a, b, false);
}

static const struct dist_mode *const modes[] = {&dist_mode_ddp, &dist_mode_mpi};
static const char *const compats[] = {NULL,      "modelarts", "tione",
                                      "azureml", "kubeflow",  "modelarts,kubeflow"};

/* Whatever rank 0's task would export in the launcher form, the task on
 * any other node would export alike: nothing in it is one task's. */
static void test_launcher_contract_same_for_every_task(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t c = 0; c < sizeof(compats) / sizeof(compats[0]); c++)
			for (uint32_t node = 1; node < 3; node++) {
				struct dist_world w0 = launcher_task(0, true);
				struct dist_world wn = launcher_task(node, true);
				struct dist_env e0, en;
				size_t nargs0, nargsn;

				build(modes[m], compats[c], &w0, &e0, &nargs0);
				build(modes[m], compats[c], &wn, &en, &nargsn);
				if (!same_env_but(&e0, &en, true))
					fail_msg("%s with %s: node %u's launcher contract differs "
					         "from node 0's",
					         modes[m]->name,
					         compats[c] ? compats[c] : "no profile", node);
				assert_int_equal(nargs0, 0);
				assert_int_equal(nargsn, 0);
				for (size_t i = 0; i < e0.count; i++)
					if (strcmp(e0.vars[i].name, "RANK") == 0 ||
					    strcmp(e0.vars[i].name, "WORLD_SIZE") == 0 ||
					    strcmp(e0.vars[i].name, "LOCAL_RANK") == 0)
						fail_msg("%s reaches the launcher",
						         e0.vars[i].name);
				dist_env_free(&e0);
				dist_env_free(&en);
			}
}

/* Without the launcher form every task keeps its own: the comparison above
 * would see a difference. */
static void test_native_contract_differs_per_task(void **state)
{
	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct dist_world w0 = launcher_task(0, false);
		struct dist_world w1 = launcher_task(1, false);
		struct dist_env e0, e1;
		size_t nargs;

		build(modes[m], NULL, &w0, &e0, &nargs);
		build(modes[m], NULL, &w1, &e1, &nargs);
		assert_false(same_env(&e0, &e1));
		assert_string_equal(dist_env_get(&e1, "RANK"), "1");
		assert_string_equal(dist_env_get(&e1, "GLOO_SOCKET_IFNAME"), "ens5");
		dist_env_free(&e0);
		dist_env_free(&e1);
	}
}

/* Mode mpi's launcher task gives mpiexec (MPICH's Hydra) its own node's
 * interface; a task of the native form runs no mpiexec and gets none. */
static void test_hydra_iface_only_launcher(void **state)
{
	(void)state;
	for (uint32_t node = 0; node < 3; node++) {
		struct dist_world wl = launcher_task(node, true);
		struct dist_world wn = launcher_task(node, false);
		struct dist_env el, en;
		size_t nargs;

		build(&dist_mode_mpi, NULL, &wl, &el, &nargs);
		build(&dist_mode_mpi, NULL, &wn, &en, &nargs);
		assert_non_null(dist_env_get(&el, "HYDRA_IFACE"));
		assert_string_equal(dist_env_get(&el, "HYDRA_IFACE"), wl.master_ifname);
		assert_null(dist_env_get(&en, "HYDRA_IFACE"));
		dist_env_free(&el);
		dist_env_free(&en);
	}
}

static bool torch_launcher(const char *a0, const char *a1, const char *a2, const char *a3)
{
	char *argv[] = {(char *)a0, (char *)a1, (char *)a2, (char *)a3, NULL};

	return dist_is_torch_launcher(argv);
}

static void test_torch_launchers_recognised(void **state)
{
	(void)state;
	assert_true(torch_launcher("torchrun", "--nproc_per_node=8", "train.py", NULL));
	assert_true(torch_launcher("/usr/bin/torchrun", "train.py", NULL, NULL));
	assert_true(torch_launcher("python3", "-m", "torch.distributed.run", "train.py"));
	assert_true(torch_launcher("/usr/bin/python3.11", "-u", "-m", "torch.distributed.launch"));
	assert_true(torch_launcher("python", "-W", "ignore", "-mtorch.distributed.run"));
	assert_false(torch_launcher("python3", "train.py", "-m", "torch.distributed.run"));
	assert_false(torch_launcher("python3", "-c", "import torch.distributed.run", NULL));
	assert_false(torch_launcher("python3", "-m", "torch.distributed", NULL));
	assert_false(torch_launcher("bash", "-c", "torchrun train.py", NULL));
	assert_false(torch_launcher("python3", "-m", NULL, NULL));
}

/* deepspeed.init_distributed() skips its MPI discovery (the first address
 * of `hostname -I` as master) only when all five are set: every native
 * contract that sets one sets all; the launcher form sets only the master,
 * and nothing that claims torchrun started its processes. */
static void test_deepspeed_all_or_none(void **state)
{
	static const char *const five[] = {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
	                                   "LOCAL_RANK"};

	(void)state;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t c = 0; c < sizeof(compats) / sizeof(compats[0]); c++) {
			struct dist_world w = launcher_task(1, false);
			struct dist_env env;
			size_t nargs, have = 0;

			build(modes[m], compats[c], &w, &env, &nargs);
			for (size_t i = 0; i < 5; i++)
				have += dist_env_get(&env, five[i]) != NULL;
			assert_int_equal(have, 5);
			assert_string_equal(dist_env_get(&env, "TORCHELASTIC_USE_AGENT_STORE"),
			                    "False");
			dist_env_free(&env);
			w.launcher = true;
			build(modes[m], compats[c], &w, &env, &nargs);
			assert_null(dist_env_get(&env, "RANK"));
			assert_null(dist_env_get(&env, "TORCHELASTIC_RUN_ID"));
			assert_null(dist_env_get(&env, "TORCHELASTIC_ERROR_FILE"));
			assert_null(dist_env_get(&env, "ROLE_RANK"));
			dist_env_free(&env);
		}
}

/* What stays in the launcher form: the master, the step's shape, the
 * hostfiles and Open MPI's network (the same CIDR on every node). */
static void test_launcher_keeps_what_is_common(void **state)
{
	(void)state;
	struct dist_world w = launcher_task(0, true);
	struct dist_env env;
	size_t nargs;

	build(&dist_mode_mpi, "tione", &w, &env, &nargs);
	assert_string_equal(dist_env_get(&env, "MASTER_ADDR"), "10.77.0.1");
	assert_string_equal(dist_env_get(&env, "MASTER_PORT"), "24017");
	assert_string_equal(dist_env_get(&env, "NNODES"), "3");
	assert_string_equal(dist_env_get(&env, "OMPI_MCA_orte_default_hostfile"),
	                    "/tmp/slurm-dist.1000/job42.step0/hostfile");
	assert_string_equal(dist_env_get(&env, "OMPI_MCA_btl_tcp_if_include"), "10.77.0.0/24");
	assert_string_equal(dist_env_get(&env, "NODE_IP_SLOT_LIST"),
	                    "10.77.0.1:4,10.77.0.2:4,10.77.0.3:4");
	assert_null(dist_env_get(&env, "RANK"));
	assert_null(dist_env_get(&env, "INDEX"));
	assert_null(dist_env_get(&env, "WORLD_SIZE"));
	assert_null(dist_env_get(&env, "NCCL_SOCKET_IFNAME"));
	dist_env_free(&env);
}

static void test_sources_per_task_or_node(void **state)
{
	(void)state;
	assert_false(dist_source_same_for_all(SRC_RANK));
	assert_false(dist_source_same_for_all(SRC_LOCAL_RANK));
	assert_false(dist_source_same_for_all(SRC_NODE_RANK));
	assert_false(dist_source_same_for_all(SRC_NODE_ADDR));
	assert_false(dist_source_same_for_all(SRC_WORLD_SIZE));
	assert_false(dist_source_same_for_all(SRC_TF_INDEX));
	assert_true(dist_source_same_for_all(SRC_NNODES));
	assert_true(dist_source_same_for_all(SRC_MASTER_ADDR));
	assert_true(dist_source_same_for_all(SRC_HOST_LIST));
	assert_true(dist_source_same_for_all(SRC_GPUS_TOTAL));
}

/* DIST_SHIM_ARGV0 counts only for the process it was made for. */
static void test_argv0_handover(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(dist_handover_encode(4242, "python3", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4242:python3");
	assert_string_equal(dist_handover_decode(buf, 4242), "python3");
	assert_string_equal(dist_handover_decode("7:/bin/a:b", 7), "/bin/a:b");
	/* A leftover from another process, or a bare program name as before. */
	assert_null(dist_handover_decode(buf, 4243));
	assert_null(dist_handover_decode("/tmp/evil", 4242));
	assert_null(dist_handover_decode("4242", 4242));
	assert_null(dist_handover_decode("4242:", 4242));
	assert_null(dist_handover_decode("04242:x", 4242));
	assert_null(dist_handover_decode("-4242:x", -4242));
	assert_null(dist_handover_decode("", 4242));
	assert_null(dist_handover_decode(NULL, 4242));
	assert_null(dist_handover_decode("99999999999999999999999:x", 4242));
	assert_int_equal(dist_handover_encode(4242, "python3", buf, 12), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_mpi_daemons_recognised),
	        cmocka_unit_test(test_argv0_handover),
	        cmocka_unit_test(test_other_programs_not_daemons),
	        cmocka_unit_test(test_launcher_contract_same_for_every_task),
	        cmocka_unit_test(test_native_contract_differs_per_task),
	        cmocka_unit_test(test_hydra_iface_only_launcher),
	        cmocka_unit_test(test_launcher_keeps_what_is_common),
	        cmocka_unit_test(test_sources_per_task_or_node),
	        cmocka_unit_test(test_deepspeed_all_or_none),
	        cmocka_unit_test(test_torch_launchers_recognised),
	};

	return cmocka_run_group_tests_name("dist_launch", tests, NULL, NULL);
}
