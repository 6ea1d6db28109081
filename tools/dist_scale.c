/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scale simulation of the pure core: what one task of a large step costs to
 * build (environment, appended arguments, and the files its node writes:
 * hostfiles, the rank table), for every mode of dist_mode.c's table, alone
 * and with every --dist-compat profile of dist_profile.c's table that
 * applies to it, on synthetic steps of N nodes x K tasks.
 *
 *   dist-scale [--nodes N,N,...] [--tasks-per-node K] [--reps R] [--quick]
 *
 * Defaults: N = 2,256,2048,16384, K = 8; --quick: N = 2,256,2048 and one
 * repetition (the ctest test: correctness only, no timing threshold).
 *
 * For each case, rank 0 and an ordinary rank (the 4th task of the middle
 * node): the median CPU time of R builds (CLOCK_THREAD_CPUTIME_ID), split
 * into the environment with its arguments and the files, and the median wall
 * time of both (CLOCK_MONOTONIC, which a loaded machine inflates); the peak
 * memory of one more
 * build (growth of the resident set: VmHWM, reset through
 * /proc/self/clear_refs after malloc_trim, minus VmRSS before; page
 * granularity); the largest variable and file. Each output is checked
 * (every host list and hostfile has one entry per node, TF_CONFIG and the
 * rank table parse and list every task); a build that fails or an output
 * that is not well-formed makes the exit status 1. A variable longer than
 * Linux's limit for one exec string (MAX_ARG_STRLEN, 128 KiB with its name)
 * is flagged: execve would refuse it (E2BIG). */
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist_buf.h"
#include "dist_launch.h"
#include "dist_mode.h"
#include "dist_profile.h"

#define EXEC_STRING_MAX (32 * 4096) /* MAX_ARG_STRLEN: one "NAME=value" */

/* A synthetic step: every node K tasks and K GPUs (and NPUs), ranks in
 * block order, one parameter server a node and a chief. */
struct sim {
	struct dist_world w;
	struct dist_node *nodes;
	struct dist_task *tasks;
	uint32_t *ranks_by_node;
	char **npus;
};

static int sim_build(struct sim *s, uint32_t nnodes, uint32_t per_node)
{
	uint32_t size = nnodes * per_node;

	memset(s, 0, sizeof(*s));
	s->nodes = calloc(nnodes, sizeof(*s->nodes));
	s->tasks = calloc(size, sizeof(*s->tasks));
	s->ranks_by_node = calloc(size, sizeof(*s->ranks_by_node));
	s->npus = calloc(nnodes, sizeof(*s->npus));
	if (!s->nodes || !s->tasks || !s->ranks_by_node || !s->npus)
		return -1;
	for (uint32_t k = 0; k < nnodes; k++) {
		struct dist_buf npus = DIST_BUF_INIT;

		/* 10.128.100.100 and on: unique, as long as real addresses get. */
		snprintf(s->nodes[k].addr, sizeof(s->nodes[k].addr), "10.%u.%u.%u",
		         128 + k / 16384 % 128, 100 + k / 128 % 128, 100 + k % 128);
		s->nodes[k].ntasks = per_node;
		s->nodes[k].gpus = per_node;
		s->nodes[k].prefix = 8;
		s->nodes[k].slurm_index = k;
		for (uint32_t j = 0; j < per_node; j++)
			dist_buf_appendf(&npus, "%s%u=192.%u.%u.%u", j ? "," : "", j, 168 + j,
			                 100 + k / 128 % 128, 100 + k % 128);
		s->npus[k] = dist_buf_take(&npus);
		if (!s->npus[k])
			return -1;
	}
	for (uint32_t r = 0; r < size; r++) {
		memcpy(s->tasks[r].addr, s->nodes[r / per_node].addr, DIST_ADDR_MAX);
		s->tasks[r].port = (uint16_t)(29501 + r % per_node);
		s->ranks_by_node[r] = r;
	}
	s->w = (struct dist_world){
	        .size = size,
	        .local_size = per_node,
	        .nnodes = nnodes,
	        .master_port = 29500,
	        .master_ifname = "eth0",
	        .local_gpus = 1,
	        .nodes = s->nodes,
	        .tasks = s->tasks,
	        .roles = {.ps = nnodes, .chief = true, .evaluator = false},
	        .ranks_by_node = s->ranks_by_node,
	        .node_extras = (const char *const *)s->npus,
	        .hccl_base_port = 60000,
	        .step_dir = "/tmp/slurm-dist.1000/job1.step0",
	        .step_has_pmix = true,
	};
	memcpy(s->w.master_addr, s->nodes[0].addr, DIST_ADDR_MAX);
	return 0;
}

static void sim_free(struct sim *s)
{
	for (uint32_t k = 0; s->npus && k < s->w.nnodes; k++)
		free(s->npus[k]);
	free(s->npus);
	free(s->nodes);
	free(s->tasks);
	free(s->ranks_by_node);
}

static void sim_set_rank(struct sim *s, uint32_t rank)
{
	s->w.rank = rank;
	s->w.node_rank = rank / s->w.local_size;
	s->w.local_rank = rank % s->w.local_size;
}

/* One mode with at most one profile. */
struct scase {
	const struct dist_mode *mode;
	const struct dist_profile *profile; /* NULL: the mode alone */
};

/* What one build produced. */
struct output {
	struct dist_env env;
	char **args;
	size_t nargs;
	struct dist_files files;
};

static void output_free(struct output *o)
{
	dist_env_free(&o->env);
	dist_argv_free(o->args);
	o->args = NULL;
	dist_files_free(&o->files);
}

/* CPU time of this thread: what the build costs, whatever else the machine
 * runs (on a shared machine wall time mostly measures the others). */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* What one task builds: its environment and arguments (ENV_MS), and what
 * its node writes (FILES_MS). */
static int build(const struct scase *c, const struct dist_world *w, struct output *o,
                 double *env_ms, double *files_ms, struct dist_err *err)
{
	const struct dist_profile *const *profiles = &c->profile;
	size_t nprofiles = c->profile ? 1 : 0;
	double t0 = now_ms(), t1;

	dist_env_init(&o->env);
	o->args = NULL;
	o->files.count = 0;
	if (dist_contract_env(c->mode, profiles, nprofiles, w, &o->env, err) ||
	    dist_profiles_build_args(profiles, nprofiles, w, &o->args, &o->nargs, err))
		return -1;
	t1 = now_ms();
	if (c->mode->build_files && c->mode->build_files(w, &o->files, err))
		return -1;
	*env_ms = t1 - t0;
	*files_ms = now_ms() - t1;
	return 0;
}

/* kB from a /proc/self/status line ("VmRSS:", "VmHWM:"); -1 if unknown. */
static long status_kib(const char *key)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0)
			kib = strtol(line + strlen(key), NULL, 10);
	if (f)
		fclose(f);
	return kib;
}

/* Resets VmHWM to the current resident set; false where the kernel does not
 * let us (then no peak is reported). */
static int reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	int rc;

	if (!f)
		return -1;
	rc = fputs("5", f) < 0;
	return fclose(f) || rc ? -1 : 0;
}

static long measure_peak_kib(const struct scase *c, const struct dist_world *w)
{
	struct output o;
	struct dist_err err = {{0}};
	double a, b;
	long before, after;

	malloc_trim(0);
	if (reset_peak())
		return -1;
	before = status_kib("VmRSS:");
	if (build(c, w, &o, &a, &b, &err))
		after = -1;
	else
		after = status_kib("VmHWM:");
	output_free(&o);
	return before < 0 || after < 0 ? -1 : after - before;
}

/* ---- checks: every output well-formed for the step ---- */

static size_t count_char(const char *text, char c)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == c;
	return n;
}

static size_t list_items(const char *text)
{
	return *text ? count_char(text, ',') + 1 : 0;
}

/* The entries a variable named NAME must list, by the profiles' tables
 * (mode mpi's NODE_IP_SLOT_LIST and VC_WORKER_HOSTS are the same names as
 * TI-ONE's and ModelArts'); 0 for a variable that is not a list. */
static size_t expected_items(const char *name, const struct dist_world *w)
{
	size_t count, workers = w->size - w->roles.ps - (w->roles.chief ? 1 : 0);
	const struct dist_profile *table = dist_profile_table(&count);

	for (size_t p = 0; p < count; p++) {
		for (size_t i = 0; i < table[p].nvars; i++) {
			if (strcmp(table[p].vars[i].name, name) != 0)
				continue;
			switch (table[p].vars[i].source) {
			case SRC_HOST_LIST:
			case SRC_NODE_GPU_LIST:
			case SRC_NODE_SLOT_LIST:
				return w->nnodes;
			case SRC_TF_PS_HOSTS:
				return w->roles.ps;
			case SRC_TF_WORKER_HOSTS:
				return workers;
			default:
				return 0;
			}
		}
	}
	return 0;
}

/* TF_CONFIG lists every task but the evaluator (there is none here). */
static int check_tf_config(const char *text, const struct dist_world *w)
{
	json_t *config = json_loads(text, 0, NULL), *cluster, *list;
	const char *role;
	size_t total = 0;

	cluster = json_object_get(config, "cluster");
	json_object_foreach(cluster, role, list) total += json_array_size(list);
	json_decref(config);
	return cluster && total == w->size ? 0 : -1;
}

/* Rank table: every node a server, every task a device. */
static int check_rank_table(const char *text, const struct dist_world *w)
{
	json_t *table = json_loads(text, 0, NULL), *servers, *server;
	size_t i, devices = 0;

	servers = json_object_get(table, "server_list");
	json_array_foreach(servers, i, server) devices +=
	        json_array_size(json_object_get(server, "device"));
	i = json_array_size(servers);
	json_decref(table);
	return i == w->nnodes && devices == w->size ? 0 : -1;
}

/* Empty string when O is well-formed, else what is wrong. */
static const char *check_output(const struct output *o, const struct dist_world *w)
{
	static char why[256];

	for (size_t i = 0; i < o->env.count; i++) {
		const struct dist_env_var *v = &o->env.vars[i];
		size_t want = expected_items(v->name, w);

		if (want && list_items(v->value) != want)
			return snprintf(why, sizeof(why), "%s lists %zu entries, not %zu", v->name,
			                list_items(v->value), want),
			       why;
		if (strcmp(v->name, "TF_CONFIG") == 0 && check_tf_config(v->value, w))
			return "TF_CONFIG does not list every task";
	}
	for (size_t i = 0; i < o->files.count; i++) {
		const struct dist_file *f = &o->files.f[i];

		if (strncmp(f->name, "hostfile", 8) == 0 &&
		    count_char(f->content, '\n') != w->nnodes)
			return snprintf(why, sizeof(why), "%s has %zu lines for %u nodes", f->name,
			                count_char(f->content, '\n'), w->nnodes),
			       why;
		if (strstr(f->name, ".json") && check_rank_table(f->content, w))
			return snprintf(why, sizeof(why), "%s does not list every node and task",
			                f->name),
			       why;
	}
	return "";
}

/* ---- the table ---- */

struct row {
	double env_ms, files_ms, wall_ms; /* CPU time, CPU time, wall time of both */
	long peak_kib;
	char var[48]; /* the largest variable, or the flag of the largest argument */
	size_t var_bytes, file_bytes;
};

static void largest(const struct output *o, struct row *r)
{
	snprintf(r->var, sizeof(r->var), "-");
	r->var_bytes = 0;
	r->file_bytes = 0;
	for (size_t i = 0; i < o->env.count; i++) {
		size_t n = strlen(o->env.vars[i].name) + 1 + strlen(o->env.vars[i].value);

		if (n > r->var_bytes) {
			r->var_bytes = n;
			snprintf(r->var, sizeof(r->var), "%s", o->env.vars[i].name);
		}
	}
	for (size_t i = 0; i < o->nargs; i++) {
		size_t n = strlen(o->args[i]);

		if (n > r->var_bytes) {
			r->var_bytes = n;
			snprintf(r->var, sizeof(r->var), "%s", o->args[i % 2 ? i - 1 : i]);
		}
	}
	for (size_t i = 0; i < o->files.count; i++)
		if (strlen(o->files.f[i].content) > r->file_bytes)
			r->file_bytes = strlen(o->files.f[i].content);
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Builds REPS times (median times), once more for the peak, checks. */
static int measure(const struct scase *c, const struct dist_world *w, unsigned reps, struct row *r)
{
	double env[64], files[64], wall[64];
	struct dist_err err = {{0}};
	struct output o;
	const char *why;

	if (reps > 64)
		reps = 64;
	for (unsigned i = 0; i < reps; i++) {
		wall[i] = wall_ms();
		if (build(c, w, &o, &env[i], &files[i], &err)) {
			output_free(&o);
			fprintf(stderr, "dist-scale: %s%s%s, %u nodes, rank %u: %s\n",
			        c->mode->name, c->profile ? " + " : "",
			        c->profile ? c->profile->name : "", w->nnodes, w->rank, err.msg);
			return -1;
		}
		if (i == 0) {
			largest(&o, r);
			why = check_output(&o, w);
			if (*why) {
				output_free(&o);
				fprintf(stderr, "dist-scale: %s%s%s, %u nodes, rank %u: %s\n",
				        c->mode->name, c->profile ? " + " : "",
				        c->profile ? c->profile->name : "", w->nnodes, w->rank,
				        why);
				return -1;
			}
		}
		wall[i] = wall_ms() - wall[i];
		output_free(&o);
	}
	qsort(wall, reps, sizeof(wall[0]), compare_double);
	qsort(env, reps, sizeof(env[0]), compare_double);
	qsort(files, reps, sizeof(files[0]), compare_double);
	r->env_ms = env[reps / 2];
	r->files_ms = files[reps / 2];
	r->wall_ms = wall[reps / 2];
	r->peak_kib = measure_peak_kib(c, w);
	return 0;
}

/* Every mode alone, then with each profile that has a table for it. */
static size_t list_cases(struct scase *cases, size_t max)
{
	size_t n = 0, nprofiles;
	const struct dist_profile *table = dist_profile_table(&nprofiles);
	const struct dist_mode *mode;

	for (size_t m = 0; (mode = dist_mode_at(m)) != NULL; m++) {
		if (n < max)
			cases[n++] = (struct scase){mode, NULL};
		for (size_t p = 0; p < nprofiles; p++) {
			const struct dist_profile *one[1];
			struct dist_err err = {{0}};
			size_t count;
			bool seen = false;

			for (size_t q = 0; q < p; q++)
				seen |= strcmp(table[q].name, table[p].name) == 0;
			if (seen || dist_profiles_parse(table[p].name, one, &count, &err) ||
			    dist_profiles_select_mode(one, count, mode->name, &err))
				continue;
			if (n < max)
				cases[n++] = (struct scase){mode, one[0]};
		}
	}
	return n;
}

static int parse_nodes(const char *text, uint32_t *nodes, size_t max, size_t *count)
{
	char *end;

	*count = 0;
	while (*text && *count < max) {
		unsigned long v = strtoul(text, &end, 10);

		if (end == text || v == 0 || v > 1000000 || (*end && *end != ','))
			return -1;
		nodes[(*count)++] = (uint32_t)v;
		text = *end ? end + 1 : end;
	}
	return *text ? -1 : 0;
}

static unsigned default_reps(uint32_t ranks)
{
	return ranks <= 2048 ? 21 : ranks <= 16384 ? 9 : 5;
}

int main(int argc, char **argv)
{
	uint32_t sizes[16] = {2, 256, 2048, 16384}, per_node = 8;
	size_t nsizes = 4, ncases;
	unsigned reps = 0;
	struct scase cases[64];
	static struct row rows[16][64][2];
	int failed = 0, over_limit = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc) {
			if (parse_nodes(argv[++i], sizes, 16, &nsizes) || nsizes == 0)
				goto usage;
		} else if (strcmp(argv[i], "--tasks-per-node") == 0 && i + 1 < argc) {
			per_node = (uint32_t)strtoul(argv[++i], NULL, 10);
			if (per_node == 0 || per_node > 16)
				goto usage;
		} else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
			reps = (unsigned)strtoul(argv[++i], NULL, 10);
			if (reps == 0 || reps > 64)
				goto usage;
		} else if (strcmp(argv[i], "--quick") == 0) {
			nsizes = 3;
			reps = 1;
		} else {
			goto usage;
		}
	}
	ncases = list_cases(cases, 64);
	printf("# dist-scale: %zu cases (modes x profiles) x %zu sizes x %u tasks a node\n", ncases,
	       nsizes, per_node);
	printf("# env = environment + arguments of one task; files = what its node writes;\n"
	       "# env_ms, files_ms: median CPU time; wall_ms: median wall time of both;\n"
	       "# growth: CPU time over the previous size's / ranks ratio (1.00 = linear);\n"
	       "# peak_kib: resident-set growth during one build\n");
	printf("%-7s %-10s %6s %7s %-8s %9s %9s %9s %7s %8s %-22s %9s %9s\n", "mode", "profile",
	       "nodes", "ranks", "rank", "env_ms", "files_ms", "wall_ms", "growth", "peak_kib",
	       "largest_var", "var_bytes", "file_bytes");
	for (size_t s = 0; s < nsizes; s++) {
		struct sim sim;

		if (sim_build(&sim, sizes[s], per_node)) {
			fprintf(stderr, "dist-scale: out of memory for %u nodes\n", sizes[s]);
			return 1;
		}
		for (size_t c = 0; c < ncases; c++) {
			for (int which = 0; which < 2; which++) {
				struct row *r = &rows[s][c][which];
				uint32_t rank =
				        which ? sim.w.nnodes / 2 * per_node + per_node / 2 - 1 : 0;
				char growth[16] = "-";

				sim_set_rank(&sim, rank);
				if (measure(&cases[c], &sim.w,
				            reps ? reps : default_reps(sim.w.size), r)) {
					failed = 1;
					continue;
				}
				if (s > 0 && rows[s - 1][c][which].env_ms > 0)
					snprintf(growth, sizeof(growth), "%.2f",
					         (r->env_ms + r->files_ms) /
					                 (rows[s - 1][c][which].env_ms +
					                  rows[s - 1][c][which].files_ms) /
					                 ((double)sizes[s] / sizes[s - 1]));
				over_limit |= r->var_bytes + 1 > EXEC_STRING_MAX;
				printf("%-7s %-10s %6u %7u %-8s %9.3f %9.3f %9.3f %7s %8ld %-22s "
				       "%9zu%s %9zu\n",
				       cases[c].mode->name,
				       cases[c].profile ? cases[c].profile->name : "-",
				       sim.w.nnodes, sim.w.size, which ? "ordinary" : "0",
				       r->env_ms, r->files_ms, r->wall_ms, growth, r->peak_kib,
				       r->var, r->var_bytes,
				       r->var_bytes + 1 > EXEC_STRING_MAX ? "!" : " ",
				       r->file_bytes);
			}
		}
		fflush(stdout);
		sim_free(&sim);
	}
	if (over_limit)
		printf("# !: a variable or argument longer than one exec string may be (%d bytes "
		       "with its name, MAX_ARG_STRLEN): execve would fail with E2BIG\n",
		       EXEC_STRING_MAX);
	if (failed)
		fprintf(stderr, "dist-scale: FAILED: a build failed or gave a malformed output\n");
	return failed;
usage:
	fprintf(stderr, "usage: dist-scale [--nodes N,N,...] [--tasks-per-node K] [--reps R] "
	                "[--quick]\n");
	return 2;
}
