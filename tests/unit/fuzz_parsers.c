/* Fuzzes every parser that reads text from users, sites or other tasks,
 * built with AddressSanitizer and UndefinedBehaviorSanitizer: random and
 * mutated inputs (fixed seed, so every run is the same run) must never read
 * or write out of bounds, and whatever a parser accepts must come back the
 * same through its formatter. Prints "N passed, 0 failed" at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "dist_bind.h"
#include "dist_net.h"
#include "dist_npu.h"
#include "dist_pmimap.h"
#include "dist_port.h"
#include "dist_profile.h"
#include "dist_rdma.h"
#include "dist_roles.h"
#include "dist_slurmenv.h"

#define ROUNDS 200000
#define MAXLEN 200

static unsigned long long state = 0x9e3779b97f4a7c15ull;
static long failures;

static unsigned next_random(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (unsigned)(state >> 11);
}

/* Random text over ALPHABET, or a valid SEED with a few bytes changed. */
static void make_input(char *buf, const char *alphabet, const char *seed)
{
	size_t n = next_random() % MAXLEN, alen = strlen(alphabet);

	if (seed && next_random() % 2) {
		snprintf(buf, MAXLEN + 1, "%s", seed);
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
}

/* Whatever mapping is accepted for SIZE ranks formats and parses back to
 * the same nodes. */
static void fuzz_pmi_mapping(const char *in, uint32_t size)
{
	uint32_t a[64], b[64], na, nb;
	struct dist_err err;
	char text[4096];

	if (dist_pmi_mapping_parse(in, size, a, &na, &err) != 0)
		return;
	check(na >= 1 && na <= size, "mapping node count", in);
	check(dist_pmi_mapping_format(a, size, text, sizeof(text), &err) == 0, "mapping format",
	      in);
	check(dist_pmi_mapping_parse(text, size, b, &nb, &err) == 0 && nb == na,
	      "mapping round trip", in);
	for (uint32_t r = 0; r < size && nb == na; r++)
		check(a[r] == b[r], "mapping same", in);
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
	if (dist_tasks_per_node_parse(in, counts, 64, &n, &err) == 0)
		check(n >= 1 && n <= 64, "tasks per node count", in);
	if (dist_profiles_parse(in, profiles, &n, &err) == 0)
		check(n >= 1 && n <= DIST_PROFILES_MAX, "profiles count", in);
	dist_parse_u32(in, &v);
	dist_count_list_items(in);
	dist_npu_ids(in, 4, ids, &err);
	dist_hccn_lookup(in, ids, 4, npus, &err);
	dist_config_parse(1, argv, "/usr/bin/dist-shim", &cfg, &err);
	dist_is_multi_prog_argv(2, (char *[]){"x", (char *)in, NULL});
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

int main(void)
{
	static const char *const alphabets[] = {"0123456789.,=/-:x() \n",
	                                        "(vector,0123)",
	                                        "eth0=1234567890./,",
	                                        "address_0123=.,\n\r# ",
	                                        "abcdefghijklmnopqrstuvwxyz_,=/0123456789",
	                                        "\x01\xff\"\\%s%n{}[]\t "};
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
	        "mlx5_0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a4d:0001\t10.77.0.1\tv2\tens1f0\n"};
	char in[MAXLEN + 1];
	long runs = 0;

	for (int r = 0; r < ROUNDS; r++) {
		make_input(in,
		           alphabets[next_random() % (sizeof(alphabets) / sizeof(alphabets[0]))],
		           seeds[next_random() % (sizeof(seeds) / sizeof(seeds[0]))]);
		fuzz_addr_list(in);
		fuzz_npus(in);
		fuzz_others(in);
		fuzz_pmi_mapping(in, 1 + next_random() % 64);
		runs++;
	}
	printf("%ld passed, %ld failed\n", runs - failures, failures);
	return failures ? 1 : 0;
}
