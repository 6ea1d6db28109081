/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints the environment a mode exports for a recorded rank/peer model:
 *   golden-env MODE WORLD_FILE
 * WORLD_FILE has one key=value per line (rank, size, local_rank, local_size,
 * node_rank, nnodes, master_addr, master_port, master_ifname, local_gpus),
 * optionally "compat=LIST" (--dist-compat profiles), "step_dir=PATH",
 * "names=NAME,..." (Slurm's names of the nodes, node order: a Slurm step),
 * "launcher=1" (the launcher form), "restart_count=N" and "run_id=ID" (the
 * job's attempt and id), "ompi=orte|prrte" (the Open MPI on the
 * task's PATH: 4, or 5 and later), "pmix=1" (the step has PMIx), the
 * ps layout ("ps=N", "chief=1", "evaluator=1"), one "task=ADDR:PORT" line
 * per task in rank order, one "npus=ID=IP,..." line per node (mode
 * ascend, node order; ranks are taken in block order), and one
 * "node=ADDR,TASKS,GPUS[,PREFIX[,SLURM_INDEX]]" line per node (the node
 * table, in node order). The
 * output (sorted variables, "ARGS:" and the appended arguments, then each
 * file the mode writes after "FILE name:") is
 * compared with a golden file by run-golden.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_profile.h"
#include "dist_slurmenv.h"

#define NODES_MAX 16

static struct dist_node nodes[NODES_MAX];
static size_t nnodes;
static char compat[256];
static char step_dir[256];
static char *npus[NODES_MAX];
static size_t nnpus;
static char *names[NODES_MAX];
static size_t nnames;
static uint32_t block_ranks[64];
static struct dist_task tasks[64];
static size_t ntasks;

/* "ADDR:PORT", one per task in rank order */
static int add_task(const char *value)
{
	const char *colon = strrchr(value, ':');
	uint32_t port;

	if (ntasks == sizeof(tasks) / sizeof(tasks[0]) || !colon ||
	    (size_t)(colon - value) >= sizeof(tasks[0].addr) || dist_parse_u32(colon + 1, &port) ||
	    port > 65535)
		return -1;
	memcpy(tasks[ntasks].addr, value, (size_t)(colon - value));
	tasks[ntasks].addr[colon - value] = '\0';
	tasks[ntasks].port = (uint16_t)port;
	ntasks++;
	return 0;
}

/* "ADDR,TASKS,GPUS[,PREFIX[,SLURM_INDEX]]"; by default Slurm lists the
 * nodes in the step's order. */
static int add_node(const char *value)
{
	struct dist_node *n = &nodes[nnodes];
	char addr[DIST_ADDR_MAX];
	unsigned tasks, gpus, prefix = 0, slurm_index = (unsigned)nnodes;

	if (nnodes == NODES_MAX ||
	    sscanf(value, "%63[^,],%u,%u,%u,%u", addr, &tasks, &gpus, &prefix, &slurm_index) < 3 ||
	    prefix > 32)
		return -1;
	n->slurm_index = slurm_index;
	n->prefix = (uint8_t)prefix;
	snprintf(n->addr, sizeof(n->addr), "%s", addr);
	n->ntasks = tasks;
	n->gpus = gpus;
	nnodes++;
	return 0;
}

static int set_field(struct dist_world *w, const char *key, const char *value)
{
	static const struct {
		const char *key;
		size_t offset;
	} u32_fields[] = {
	        {"rank", offsetof(struct dist_world, rank)},
	        {"size", offsetof(struct dist_world, size)},
	        {"local_rank", offsetof(struct dist_world, local_rank)},
	        {"local_size", offsetof(struct dist_world, local_size)},
	        {"node_rank", offsetof(struct dist_world, node_rank)},
	        {"nnodes", offsetof(struct dist_world, nnodes)},
	        {"local_gpus", offsetof(struct dist_world, local_gpus)},
	        {"restart_count", offsetof(struct dist_world, restart_count)},
	};
	uint32_t v;

	for (size_t i = 0; i < sizeof(u32_fields) / sizeof(u32_fields[0]); i++)
		if (strcmp(key, u32_fields[i].key) == 0)
			return dist_parse_u32(value,
			                      (uint32_t *)((char *)w + u32_fields[i].offset));
	if (strcmp(key, "node") == 0)
		return add_node(value);
	if (strcmp(key, "task") == 0)
		return add_task(value);
	if (strcmp(key, "names") == 0) {
		char *copy = strdup(value), *save = NULL;

		for (char *n = strtok_r(copy, ",", &save); n && nnames < NODES_MAX;
		     n = strtok_r(NULL, ",", &save))
			names[nnames++] = strdup(n);
		free(copy);
		return 0;
	}
	if (strcmp(key, "npus") == 0)
		return nnpus == NODES_MAX || !(npus[nnpus++] = strdup(value));
	if (strcmp(key, "hccl_base_port") == 0) {
		if (dist_parse_u32(value, &v) || v > 65535)
			return -1;
		w->hccl_base_port = (uint16_t)v;
		return 0;
	}
	if (strcmp(key, "ps") == 0)
		return dist_parse_u32(value, &w->roles.ps);
	if (strcmp(key, "chief") == 0)
		return (w->roles.chief = strcmp(value, "1") == 0, 0);
	if (strcmp(key, "evaluator") == 0)
		return (w->roles.evaluator = strcmp(value, "1") == 0, 0);
	if (strcmp(key, "launcher") == 0)
		return (w->launcher = strcmp(value, "1") == 0, 0);
	if (strcmp(key, "pmix") == 0)
		return (w->step_has_pmix = strcmp(value, "1") == 0, 0);
	if (strcmp(key, "ompi") == 0) {
		if (strcmp(value, "orte") == 0)
			w->ompi = DIST_OMPI_ORTE;
		else if (strcmp(value, "prrte") == 0)
			w->ompi = DIST_OMPI_PRRTE;
		else
			return -1;
		return 0;
	}
	if (strcmp(key, "step_dir") == 0)
		return snprintf(step_dir, sizeof(step_dir), "%s", value) < 0;
	if (strcmp(key, "compat") == 0)
		return snprintf(compat, sizeof(compat), "%s", value) < 0;
	if (strcmp(key, "master_addr") == 0)
		return snprintf(w->master_addr, sizeof(w->master_addr), "%s", value) < 0;
	if (strcmp(key, "run_id") == 0)
		return snprintf(w->run_id, sizeof(w->run_id), "%s", value) < 0;
	if (strcmp(key, "master_ifname") == 0)
		return snprintf(w->master_ifname, sizeof(w->master_ifname), "%s", value) < 0;
	if (strcmp(key, "master_port") == 0) {
		if (dist_parse_u32(value, &v) || v > 65535)
			return -1;
		w->master_port = (uint16_t)v;
		return 0;
	}
	return -1;
}

static int read_world(const char *path, struct dist_world *w)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (!eq || (*eq = '\0', set_field(w, line, eq + 1))) {
			fprintf(stderr, "golden-env: %s: bad line '%s'\n", path, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* The files a mode writes into the step directory, each after a
 * "FILE name:" line. */
static int print_files(const struct dist_mode *mode, const struct dist_world *w)
{
	struct dist_files files = {.count = 0};
	struct dist_err err = {{0}};

	if (!mode->build_files)
		return 0;
	if (mode->build_files(w, &files, &err)) {
		fprintf(stderr, "golden-env: %s\n", err.msg);
		return 1;
	}
	for (size_t i = 0; i < files.count; i++)
		printf("FILE %s:\n%s", files.f[i].name, files.f[i].content);
	dist_files_free(&files);
	return 0;
}

static int print_contract(const struct dist_mode *mode, const struct dist_world *w)
{
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	size_t nprofiles = 0, nargs = 0;
	struct dist_err err = {{0}};
	struct dist_env env;
	char **args = NULL;
	int rc;

	dist_env_init(&env);
	rc = (compat[0] && (dist_profiles_parse(compat, profiles, &nprofiles, &err) ||
	                    dist_profiles_select_mode(profiles, nprofiles, mode->name, &err))) ||
	     dist_contract_env(mode, profiles, nprofiles, w, &env, &err) ||
	     dist_profiles_build_args(profiles, nprofiles, w, &args, &nargs, &err);
	if (rc) {
		fprintf(stderr, "golden-env: %s\n", err.msg);
		dist_env_free(&env);
		return 1;
	}
	dist_env_sort(&env);
	for (size_t i = 0; i < env.count; i++)
		printf("%s=%s\n", env.vars[i].name, env.vars[i].value);
	printf("ARGS:");
	for (size_t i = 0; i < nargs; i++)
		printf(" %s", args[i]);
	printf("\n");
	dist_argv_free(args);
	dist_env_free(&env);
	return print_files(mode, w);
}

int main(int argc, char **argv)
{
	const struct dist_mode *mode;
	struct dist_world world = {0};

	if (argc != 3 || dist_mode_lookup(argv[1], &mode) != DIST_MODE_AVAILABLE) {
		fprintf(stderr, "usage: golden-env MODE WORLD_FILE\n");
		return 2;
	}
	if (read_world(argv[2], &world))
		return 1;
	if (nnodes) {
		if (nnodes != world.nnodes) {
			fprintf(stderr, "golden-env: %zu node lines for nnodes=%u\n", nnodes,
			        world.nnodes);
			return 1;
		}
		world.nodes = nodes;
		/* Ranks in block order: node 0 has the first ones. */
		for (uint32_t r = 0; r < world.size && r < 64; r++)
			block_ranks[r] = r;
		world.ranks_by_node = block_ranks;
	}
	if (nnpus)
		world.node_extras = (const char *const *)npus;
	if (nnames)
		world.node_names = (const char *const *)names;
	if (step_dir[0])
		world.step_dir = step_dir;
	if (ntasks) {
		if (ntasks != world.size) {
			fprintf(stderr, "golden-env: %zu task lines for size=%u\n", ntasks,
			        world.size);
			return 1;
		}
		world.tasks = tasks;
	}
	return print_contract(mode, &world);
}
