/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes every parser that reads text from users, sites or other tasks,
 * built with AddressSanitizer and UndefinedBehaviorSanitizer: random and
 * mutated inputs (fixed seed, so every run is the same run) must never read
 * or write out of bounds, and whatever a parser accepts must come back the
 * same through its formatter. Also: other tasks' node records, the shim's
 * command line, several plugstack arguments at once, inputs up to 4 KiB,
 * what a node's first task keeps of the exchange for the others, the
 * node's binding plan a node's first task writes for the others
 * (shim/bind/bind_plan.c), the doctor's reading of plugstack.conf
 * (shim/doctor/plugstack.c, from a file: one round in eight),
 * and every formatter ("generator") given a buffer of exactly a random size,
 * which it must fill or refuse without writing past it.
 * Prints "N passed, 0 failed" at the end.
 *
 *   fuzz_parsers [ROUNDS [SEED]]   (default: 200000 rounds, the fixed seed;
 *                                   docs/testing.md has the longer run) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ftw.h>
#include <unistd.h>

#include "bind/bind_plan.h"
#include "bind/rdma.h"
#include "cli.h"
#include "config.h"
#include "dist_bind.h"
#include "dist_carry.h"
#include "dist_errfile.h"
#include "dist_launch.h"
#include "dist_launchline.h"
#include "dist_net.h"
#include "dist_npu.h"
#include "dist_pmimap.h"
#include "dist_port.h"
#include "dist_profile.h"
#include "dist_rdma.h"
#include "dist_record.h"
#include "dist_roles.h"
#include "dist_runtime.h"
#include "dist_slurmenv.h"
#include "dist_stepnodes.h"
#include "doctor/plugstack.h"
#include "node/stepdir.h"
#include "wireup/shared.h"

#define ROUNDS  200000
#define MAXLEN  200  /* most inputs */
#define LONGLEN 4096 /* one in eight: beyond every fixed buffer but the record's */

static unsigned long long state = 0x9e3779b97f4a7c15ull;
static long failures;

static unsigned next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (unsigned)(state >> 11);
}

/* Random text over ALPHABET, or a valid SEED (repeated, for long inputs)
 * with a few bytes changed; BUF holds LONGLEN + 1. */
static void make_input(char *buf, const char *alphabet, const char *seed)
{
	size_t max = next_random() % 8 == 0 ? LONGLEN : MAXLEN;
	size_t n = next_random() % max, alen = strlen(alphabet);

	if (seed && next_random() % 2) {
		size_t reps = max == LONGLEN ? 1 + next_random() % 64 : 1;

		buf[0] = '\0';
		for (size_t k = 0, used = 0; k < reps && used < LONGLEN; k++)
			used += (size_t)snprintf(buf + used, LONGLEN + 1 - used, "%s%s",
			                         k ? "," : "", seed);
		n = strlen(buf);
		for (unsigned k = next_random() % 4; k > 0 && n > 0; k--)
			buf[next_random() % n] = alphabet[next_random() % alen];
		if (next_random() % 4 == 0)
			buf[next_random() % (n + 1)] = '\0';
		return;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = alphabet[next_random() % alen];
	buf[n] = '\0';
}

static void check(int ok, const char *what, const char *input)
{
	if (!ok) {
		failures++;
		fprintf(stderr, "FAIL %s: '%s'\n", what, input);
	}
}

/* A buffer of exactly LEN bytes (at least 1), so that AddressSanitizer
 * sees any byte written past it. */
static char *exact(size_t len)
{
	char *buf = malloc(len ? len : 1);

	if (!buf)
		abort();
	return buf;
}

/* Runs FORMAT into buffers of a few random sizes up to FULL's length + 1:
 * each time it must succeed with a string that fits, or refuse. */
#define CHECK_SIZES(what, in, full, call)                                                          \
	do {                                                                                       \
		for (int k_ = 0; k_ < 3; k_++) {                                                   \
			size_t len = 1 + next_random() % (strlen(full) + 2);                       \
			char *buf = exact(len);                                                    \
			if ((call) == 0)                                                           \
				check(strlen(buf) < len && strncmp(buf, full, strlen(buf)) == 0,   \
				      what " size", in);                                           \
			free(buf);                                                                 \
		}                                                                                  \
	} while (0)

static void fuzz_addr_list(const char *in)
{
	struct dist_addr_list a, b;
	struct dist_err err;
	char text[4096];

	if (dist_addr_list_parse(in, &a, &err) != 0)
		return;
	check(dist_addr_list_format(&a, text, sizeof(text), &err) == 0, "addr format", in);
	check(dist_addr_list_parse(text, &b, &err) == 0 && b.count == a.count, "addr round trip",
	      in);
	for (size_t i = 0; i < a.count && b.count == a.count; i++)
		check(strcmp(a.a[i].ifname, b.a[i].ifname) == 0 && a.a[i].addr == b.a[i].addr &&
		              a.a[i].prefix == b.a[i].prefix,
		      "addr same", in);
	CHECK_SIZES("addr format", in, text, dist_addr_list_format(&a, buf, len, &err));
}

/* Another task's node record: whatever is accepted formats and parses
 * back the same (addresses that no longer fit are left out, never cut). */
static void fuzz_node_record(const char *in)
{
	static struct dist_node_record a, b;
	struct dist_err err;
	char text[DIST_RECORD_MAX];
	uint16_t ports[64];

	if (dist_node_record_parse(in, &a, &err) != 0)
		return;
	check(dist_node_record_format(&a, text, sizeof(text), &err) == 0, "record format", in);
	check(dist_node_record_parse(text, &b, &err) == 0 && a.failed == b.failed,
	      "record round trip", in);
	if (a.failed) {
		check(strcmp(a.why, b.why) == 0, "record why", in);
		return;
	}
	check(a.gpus == b.gpus && strcmp(a.ports, b.ports) == 0 && strcmp(a.extra, b.extra) == 0 &&
	              b.addrs.count <= a.addrs.count,
	      "record same", in);
	for (size_t i = 0; i < b.addrs.count; i++)
		check(strcmp(a.addrs.a[i].ifname, b.addrs.a[i].ifname) == 0 &&
		              a.addrs.a[i].addr == b.addrs.a[i].addr,
		      "record addr same", in);
	CHECK_SIZES("record format", in, text, dist_node_record_format(&a, buf, len, &err));
	for (uint32_t n = 0; n <= 64; n += 1 + next_random() % 8)
		if (dist_task_ports_parse(a.ports, n, ports) == 0)
			for (uint32_t i = 0; i < n; i++)
				check(ports[i] != 0, "task port", in);
}

/* IN split at spaces into ARGV (at most MAX words after the FIRST ones
 * already there), in COPY; returns the count, ARGV NULL-terminated. */
static int split_words(const char *in, char *copy, size_t len, char **argv, int first, int max)
{
	char *save = NULL;
	int argc = first;

	snprintf(copy, len, "%s", in);
	for (char *word = strtok_r(copy, " ", &save); word && argc < max;
	     word = strtok_r(NULL, " ", &save))
		argv[argc++] = word;
	argv[argc] = NULL;
	return argc;
}

/* The shim's command line, split at spaces, with no DIST_SHIM_* variable
 * set (the plugin's route is the handover's, tested elsewhere). */
static void fuzz_cli(const char *in)
{
	char copy[LONGLEN + 1], *argv[64] = {"dist-shim"};
	int argc = split_words(in, copy, sizeof(copy), argv, 1, 63);
	struct cli cli;
	struct dist_err err;

	/* The shim parses once per process; here glibc's getopt must forget
	 * where it stopped inside the previous round's words (optind = 0). */
	optind = 0;
	getopt(1, (char *[]){"dist-shim", NULL}, "");
	if (cli_parse(argc, argv, &cli, &err) == 0 && cli.action == CLI_RUN)
		check(cli.cmd && cli.cmd[0] && cli.timeout_s >= 1 && cli.timeout_s <= 86400,
		      "cli run", in);
	free(cli.argv0_copy);
}

/* Several plugstack arguments at once: whatever is accepted is usable. */
static void fuzz_plugstack(const char *in)
{
	char copy[LONGLEN + 1], *argv[17];
	int argc = split_words(in, copy, sizeof(copy), argv, 0, 16);
	struct dist_config cfg;
	struct dist_port_range range;
	struct dist_err err;

	if (dist_config_parse(argc, argv, "/usr/bin/dist-shim", &cfg, &err) == 0)
		check(cfg.shim[0] == '/' &&
		              dist_port_range_parse(cfg.port_range, &range, &err) == 0,
		      "plugstack usable", in);
}

/* An mpirun line split at spaces: the reading stays inside ARGV and a
 * count it takes is one the launchers take (1 or more). */
static void fuzz_launch_line(const char *in)
{
	char copy[LONGLEN + 1], *argv[64] = {"mpirun"};
	struct dist_launch_line line;

	split_words(in, copy, sizeof(copy), argv, 1, 63);
	dist_launch_line_read(argv, &line);
	check(line.ompi_launcher, "mpirun is Open MPI's launcher", in);
}

/* A container runtime's line split at spaces, behind ch-run and behind
 * apptainer exec: the reading stays inside ARGV, and what it reports
 * refused or dropped is a word of the line and a contract variable. */
static void fuzz_runtime_line(const char *in)
{
	static const char *const names[] = {"MASTER_ADDR", "RANK"};
	char copy[LONGLEN + 1], *argv[64] = {"ch-run"};
	char copy2[LONGLEN + 1], *argv2[64] = {"apptainer", "exec"};
	struct dist_runtime_line line;

	split_words(in, copy, sizeof(copy), argv, 1, 63);
	dist_runtime_read(argv, names, 2, "/tmp/slurm-dist.job1.step0.X", &line);
	check(line.runtime && (!line.drops || line.dropped), "ch-run line read", in);
	split_words(in, copy2, sizeof(copy2), argv2, 2, 62);
	dist_runtime_read(argv2, names, 2, "/tmp/slurm-dist.job1.step0.X", &line);
	check(line.runtime && (!line.drops || line.dropped), "apptainer line read", in);
}

static void fuzz_npus(const char *in)
{
	struct dist_npu a[DIST_NPUS_MAX], b[DIST_NPUS_MAX];
	struct dist_err err;
	uint32_t n, m;
	char text[4096];

	if (dist_npus_parse(in, a, DIST_NPUS_MAX, &n, &err) != 0)
		return;
	check(dist_npus_format(a, n, text, sizeof(text), &err) == 0, "npus format", in);
	check(dist_npus_parse(text, b, DIST_NPUS_MAX, &m, &err) == 0 && m == n, "npus round trip",
	      in);
	for (uint32_t i = 0; i < n && m == n; i++)
		check(a[i].id == b[i].id && strcmp(a[i].ip, b[i].ip) == 0, "npus same", in);
	CHECK_SIZES("npus format", in, text, dist_npus_format(a, n, buf, len, &err));
}

/* Whatever mapping is accepted for SIZE ranks formats and parses back to
 * the same nodes. */
static void fuzz_pmi_mapping(const char *in, uint32_t size)
{
	uint32_t a[64], b[64], na, nb;
	struct dist_err err;
	struct dist_buf text = DIST_BUF_INIT;

	if (dist_pmi_mapping_parse(in, size, a, &na, &err) != 0)
		return;
	check(na >= 1 && na <= size, "mapping node count", in);
	check(dist_pmi_mapping_format(a, size, &text, &err) == 0, "mapping format", in);
	check(dist_pmi_mapping_parse(dist_buf_str(&text), size, b, &nb, &err) == 0 && nb == na,
	      "mapping round trip", in);
	for (uint32_t r = 0; r < size && nb == na; r++)
		check(a[r] == b[r], "mapping same", in);
	dist_buf_free(&text);
}

static void fuzz_others(const char *in)
{
	const struct dist_profile *profiles[DIST_PROFILES_MAX];
	struct dist_port_range range;
	struct dist_config cfg;
	struct dist_npu npus[4];
	uint32_t counts[64], ids[DIST_NPUS_MAX] = {0, 1, 2, 3}, v;
	struct dist_err err;
	size_t n;
	char *argv[] = {(char *)in};

	if (dist_port_range_parse(in, &range, &err) == 0)
		check(range.lo >= 1024 && range.lo <= range.hi, "port range bounds", in);
	if (dist_tasks_per_node_parse(in, counts, 64, &n, &err) == 0) {
		struct dist_buf again = DIST_BUF_INIT;
		uint32_t back[64];
		size_t m;

		check(n >= 1 && n <= 64, "tasks per node count", in);
		dist_tasks_per_node_format(counts, n, &again);
		check(dist_tasks_per_node_parse(dist_buf_str(&again), back, 64, &m, &err) == 0 &&
		              m == n && memcmp(back, counts, n * sizeof(*counts)) == 0,
		      "tasks per node round trip", in);
		dist_buf_free(&again);
	}
	if (dist_profiles_parse(in, profiles, &n, &err) == 0)
		check(n >= 1 && n <= DIST_PROFILES_MAX, "profiles count", in);
	dist_parse_u32(in, &v);
	{
		uint32_t count = dist_count_list_items(in), gpus[64];

		if (count <= 64 && dist_gpu_indexes_parse(in, gpus, count) == 0)
			check(count == dist_count_list_items(in), "gpu list count", in);
	}
	{
		struct dist_stepnodes nodes;

		/* What srun's plugin hands the tasks (SLURM_DIST_STEP_NODES). */
		if (dist_stepnodes_parse(in, &nodes, &err) == 0) {
			check(nodes.naddrs == 1 || nodes.naddrs == nodes.nnodes,
			      "step node addresses", in);
			dist_stepnodes_free(&nodes);
		}
	}
	{
		uint32_t *cpus;

		/* The node's binding plan: a parsed list is ascending. */
		if (dist_cpu_list_parse(in, &cpus, &n, &err) == 0) {
			for (size_t i = 1; i < n; i++)
				check(cpus[i] > cpus[i - 1], "cpu list ascending", in);
			free(cpus);
		}
	}
	dist_npu_ids(in, 4, ids, &err);
	dist_hccn_lookup(in, ids, 4, npus, &err);
	dist_config_parse(1, argv, "/usr/bin/dist-shim", &cfg, &err);
	dist_is_multi_prog_argv(2, (char *[]){"x", (char *)in, NULL});
	dist_is_torch_launcher((char *[]){"python3", "-m", (char *)in, NULL});
	{
		/* The carried shim's descriptors: what parses formats back the same. */
		struct dist_carried c;
		char again[512];

		if (dist_carry_parse(in, 1, &c) == 0) {
			check(c.name[0] && c.nlibs <= DIST_CARRY_MAX_LIBS, "carried shim", in);
			check(dist_carry_format(&c, 1, again, sizeof(again)) == 0,
			      "carried shim format", in);
		}
		dist_carry_name_listed(in, "RANK");
	}
	{
		/* A program's @record error file: one non-empty line or nothing. */
		char *summary = dist_errfile_summary(in);

		check(!summary || (summary[0] && !strchr(summary, '\n')), "error file summary", in);
		free(summary);
	}
	{
		struct dist_gid gids[8];
		enum dist_bind_policy policy;
		uint32_t ps;

		dist_gids_parse_show_gids(in, "mlx5_0", gids, 8, &n, &err);
		dist_bind_policy_parse("--dist-bind", in, &policy, &err);
		if (dist_roles_parse_ps("--dist-ps", in, &ps, &err) == 0)
			check(ps <= 100000, "ps bound", in);
	}
}

static int no_layout(const struct dist_world *w, struct wireup_node *nodes, uint32_t max,
                     uint32_t *count, struct dist_err *err)
{
	(void)w, (void)nodes, (void)max, (void)count;
	return dist_err_set(err, "no layout");
}

static int no_get(uint32_t rank, const char *key, unsigned timeout_s, char *buf, size_t len,
                  struct dist_err *err)
{
	(void)rank, (void)key, (void)timeout_s, (void)buf, (void)len;
	return dist_err_set(err, "no value");
}

/* What a node's first task left for the others: what the replay accepts
 * comes back as a text that replays to itself. */
static void fuzz_shared_exchange(const char *in)
{
	static const struct wireup_transport none = {
	        .name = "none", .layout = no_layout, .get = no_get};
	struct dist_err err;
	char *first, *second;

	if (!wireup_shared_replay(&none, in, &err))
		return;
	first = wireup_shared_text();
	check(first && wireup_shared_replay(&none, first, &err) != NULL, "shared exchange replays",
	      in);
	second = wireup_shared_text();
	check(first && second && strcmp(first, second) == 0, "shared exchange round trip", in);
	free(first);
	free(second);
	wireup_shared_clear();
}

/* bind_plan.c's file and NIC calls, which the parser does not reach. */
int stepdir_write(const struct stepdir *dir, const char *name, const char *content,
                  struct dist_err *err)
{
	(void)dir, (void)name, (void)content;
	return dist_err_set(err, "no step directory");
}

int stepdir_read(const struct stepdir *dir, const char *name, char **content, struct dist_err *err)
{
	(void)dir, (void)name, (void)content;
	return dist_err_set(err, "no step directory");
}

int stepdir_wait(const struct stepdir *dir, const char *name, unsigned timeout_s,
                 struct dist_err *err)
{
	(void)dir, (void)name, (void)timeout_s;
	return dist_err_set(err, "no step directory");
}

int rdma_inspect(const char *nic, bool *active, int *gid_index, struct dist_err *err)
{
	(void)nic, (void)active, (void)gid_index;
	return dist_err_set(err, "no ibverbs");
}

/* The binding plan a node's first task wrote, read by another task: mostly
 * behind a valid header (for this task's GPUs and CPUs), so that the lines
 * are reached; a plan taken is usable. */
static void fuzz_bind_plan(const char *in)
{
	static const char header[] = "slurm-dist bind plan 1\ngpus -\ncpus 0-3\n";
	static char text[sizeof(header) + LONGLEN + 1];
	struct dist_bind_plan plan = {0};
	struct bind_nic nic;
	struct dist_err err;

	snprintf(text, sizeof(text), "%s%s", next_random() % 8 ? header : "", in);
	if (bind_plan_parse(text, next_random() % 4, NULL, "0-3", &plan, &nic, &err) != 0)
		return;
	check(strlen(plan.nic) < sizeof(plan.nic), "bind plan nic", in);
	for (size_t i = 1; i < plan.ncpus; i++)
		check(plan.cpus[i] > plan.cpus[i - 1], "bind plan cpus ascending", in);
	dist_bind_plan_free(&plan);
}

/* The doctor's reading of a plugstack.conf holding IN (in DIR, alone, so
 * that an include line finds nothing but it). */
static void fuzz_doctor_plugstack(const char *dir, const char *in)
{
	struct plugstack_line line;
	struct dist_err err;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plugstack.conf", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(in, f);
	fclose(f);
	if (plugstack_find(path, dir, &line, &err) != 1)
		return;
	check(line.file && line.path && line.text && line.lineno >= 1 &&
	              strstr(line.text, "spank_dist.so") != NULL,
	      "plugstack line", in);
	plugstack_line_free(&line);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	static const char *const alphabets[] = {"0123456789.,=/-:x() \n",
	                                        "(vector,0123)",
	                                        "eth0=1234567890./,",
	                                        "address_0123=.,\n\r# ",
	                                        "abcdefghijklmnopqrstuvwxyz_,=/0123456789",
	                                        "\x01\xff\"\\%s%n{}[]\t ",
	                                        "okfaild -,=./0123456789:",
	                                        "-mpct =,/0123456789abdeghinorsux"};
	static const char *const seeds[] = {
	        "eth0=10.77.0.1/24,docker0=172.17.0.1/16",
	        "0=192.168.100.1,1=192.168.101.1",
	        "20000-31999",
	        "2(x3),1",
	        "(vector,(0,3,2))",
	        "(vector,(0,2,2),(2,1,1),(0,3,1))",
	        "tione,kubeflow",
	        "address_0=192.168.100.1\naddress_1=1.2.3.4",
	        "port_range=24000-24999",
	        "0-3 env\n* hostname\n",
	        "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a4d:0001\t10.77.0.1\tv2\tens1f0\n",
	        "ok 4 24001,24002,24003 - eth0=10.77.0.1/24,docker0=172.17.0.1/16",
	        "ok 0 - 0=192.168.100.1,1=192.168.101.1 ens5=10.77.0.2/24",
	        "failed rank 3 on tcn2: program 'train' not found",
	        "--mode ddp --compat tione,kubeflow -p 20000-20999 -t 30 -- python x.py",
	        "-m ps --ps 2 --chief --evaluator --bind none --explain --gpus 0,1 --tasks 4",
	        "shim=/opt/dist-shim port_range=24000-24999 timeout=120",
	        "0,1,2,3,4,5,6,7",
	        "slurm-dist shared exchange 1\nlayout 2\n2 0 1\n1 2\nvalue 0 slurm-dist.node 6\nok "
	        "1\n "
	        "\nvalue 2 k 0\n\n",
	        "{\"message\": {\"message\": \"RuntimeError: x\\ny\", \"extraInfo\": {}}}",
	        "0 -1 0-3 - 1 -1\n1 0 0,2 mlx5_0 1 3\n2 1 1-3 eth0 0 -1\n",
	        "# site\noptional /x/other.so\nrequired spank_dist.so port_range=24000-24999\n"
	        "include d/*.conf\n"};
	static char in[LONGLEN + 1];
	static char dir[] = "/tmp/fuzz_parsers.XXXXXX";
	long rounds = argc > 1 ? atol(argv[1]) : ROUNDS, runs = 0;

	if (argc > 2)
		state = strtoull(argv[2], NULL, 0) | 1;
	cli_clear_env();
	if (!mkdtemp(dir))
		return 1;
	for (long r = 0; r < rounds; r++) {
		make_input(in,
		           alphabets[next_random() % (sizeof(alphabets) / sizeof(alphabets[0]))],
		           seeds[next_random() % (sizeof(seeds) / sizeof(seeds[0]))]);
		fuzz_addr_list(in);
		fuzz_npus(in);
		fuzz_others(in);
		fuzz_pmi_mapping(in, 1 + next_random() % 64);
		fuzz_node_record(in);
		fuzz_shared_exchange(in);
		fuzz_cli(in);
		fuzz_plugstack(in);
		fuzz_launch_line(in);
		fuzz_runtime_line(in);
		fuzz_bind_plan(in);
		if (r % 8 == 0)
			fuzz_doctor_plugstack(dir, in);
		runs++;
	}
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	printf("%ld passed, %ld failed\n", runs - failures, failures);
	return failures ? 1 : 0;
}
