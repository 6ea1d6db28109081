/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_net.c: address lists and the choice of the master address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_net.h"

/* Host-order address from dotted text; fails the test on a typo. */
static uint32_t ip(const char *text)
{
	uint32_t addr = 0;

	assert_int_equal(dist_ipv4_parse(text, &addr), 0);
	return addr;
}

/* List from its wire form; fails the test when it does not parse. */
static struct dist_addr_list list_of(const char *text)
{
	struct dist_addr_list list;
	struct dist_err err = {{0}};

	assert_int_equal(dist_addr_list_parse(text, &list, &err), 0);
	return list;
}

static void test_ipv4_parse_and_format(void **state)
{
	char buf[DIST_ADDR_MAX];
	uint32_t addr;

	(void)state;
	assert_int_equal(dist_ipv4_parse("10.1.2.3", &addr), 0);
	assert_int_equal(addr, 0x0a010203u);
	dist_ipv4_format(0xc0a80001u, buf);
	assert_string_equal(buf, "192.168.0.1");
	assert_int_equal(dist_ipv4_parse("10.1.2", &addr), -1);
	assert_int_equal(dist_ipv4_parse("256.1.2.3", &addr), -1);
	assert_int_equal(dist_ipv4_parse("eth0", &addr), -1);
}

static void test_add_clamps_prefix_and_stops_at_max(void **state)
{
	struct dist_addr_list list = {.count = 0};

	(void)state;
	dist_addr_list_add(&list, "eth0", ip("10.0.0.1"), 40);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.a[0].ifname, "eth0");
	assert_int_equal(list.a[0].addr, ip("10.0.0.1"));
	assert_int_equal(list.a[0].prefix, 32);
	for (uint32_t i = 1; i < DIST_ADDRS_MAX + 5; i++)
		dist_addr_list_add(&list, "eth1", ip("10.0.1.0") + i, 24);
	assert_int_equal(list.count, DIST_ADDRS_MAX);
	assert_int_equal(list.a[DIST_ADDRS_MAX - 1].addr, ip("10.0.1.0") + DIST_ADDRS_MAX - 1);
}

static void test_format(void **state)
{
	struct dist_addr_list list = {.count = 0};
	struct dist_err err = {{0}};
	char buf[128];

	(void)state;
	assert_int_equal(dist_addr_list_format(&list, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "");
	dist_addr_list_add(&list, "eth0", ip("10.0.0.1"), 24);
	dist_addr_list_add(&list, "docker0", ip("172.17.0.1"), 16);
	assert_int_equal(dist_addr_list_format(&list, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "eth0=10.0.0.1/24,docker0=172.17.0.1/16");
}

static void test_format_too_long(void **state)
{
	struct dist_addr_list list = {.count = 0};
	struct dist_err err = {{0}};
	char buf[20];

	(void)state;
	dist_addr_list_add(&list, "eth0", ip("10.0.0.1"), 24);
	dist_addr_list_add(&list, "docker0", ip("172.17.0.1"), 16);
	assert_int_equal(dist_addr_list_format(&list, buf, sizeof(buf), &err), -1);
	assert_string_equal(err.msg, "address list too long");
}

static void test_parse(void **state)
{
	struct dist_addr_list list = list_of("ib0=10.1.0.1/16,lo=127.0.0.1/8,eth0=192.168.1.7/0");

	(void)state;
	assert_int_equal(list.count, 3);
	assert_string_equal(list.a[0].ifname, "ib0");
	assert_int_equal(list.a[0].addr, ip("10.1.0.1"));
	assert_int_equal(list.a[0].prefix, 16);
	assert_string_equal(list.a[1].ifname, "lo");
	assert_int_equal(list.a[1].addr, ip("127.0.0.1"));
	assert_int_equal(list.a[1].prefix, 8);
	assert_string_equal(list.a[2].ifname, "eth0");
	assert_int_equal(list.a[2].addr, ip("192.168.1.7"));
	assert_int_equal(list.a[2].prefix, 0);
}

static void test_parse_empty_text_gives_empty_list(void **state)
{
	struct dist_addr_list list;
	struct dist_err err = {{0}};

	(void)state;
	list.count = 7;
	assert_int_equal(dist_addr_list_parse("", &list, &err), 0);
	assert_int_equal(list.count, 0);
}

static void test_round_trip(void **state)
{
	const char *text = "eth0=10.0.0.1/24,docker0=172.17.0.1/16,ib0=10.10.3.4/32";
	struct dist_addr_list list = list_of(text);
	struct dist_err err = {{0}};
	char buf[256];

	(void)state;
	assert_int_equal(list.count, 3);
	assert_int_equal(dist_addr_list_format(&list, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, text);
}

static void test_parse_longest_ifname(void **state)
{
	/* IFNAMSIZ is 16 with the terminator: 15 characters fit. */
	struct dist_addr_list list = list_of("abcdefghijklmno=10.0.0.1/24");

	(void)state;
	assert_int_equal(list.count, 1);
	assert_string_equal(list.a[0].ifname, "abcdefghijklmno");
}

static void assert_parse_rejects(const char *text, const char *item)
{
	struct dist_addr_list list;
	struct dist_err err = {{0}};
	char expected[sizeof(err.msg)];

	assert_int_equal(dist_addr_list_parse(text, &list, &err), -1);
	snprintf(expected, sizeof(expected), "malformed address '%s'", item);
	assert_string_equal(err.msg, expected);
}

static void test_parse_rejects_malformed(void **state)
{
	(void)state;
	assert_parse_rejects("eth0 10.0.0.1/24", "eth0 10.0.0.1/24");     /* no '=' */
	assert_parse_rejects("eth0=10.0.0.1", "eth0=10.0.0.1");           /* no '/' */
	assert_parse_rejects("eth0=10.0.0.1/", "eth0=10.0.0.1/");         /* no length */
	assert_parse_rejects("eth0=10.0.0/24", "eth0=10.0.0/24");         /* bad IP */
	assert_parse_rejects("eth0=10.0.0.256/24", "eth0=10.0.0.256/24"); /* bad IP */
	assert_parse_rejects("eth0=/24", "eth0=/24");                     /* no IP */
	assert_parse_rejects("eth0=10.0.0.1/33", "eth0=10.0.0.1/33");     /* prefix > 32 */
	assert_parse_rejects("eth0=10.0.0.1/24x", "eth0=10.0.0.1/24x");   /* trailing */
	assert_parse_rejects("eth0=10.0.0.1/ 24", "eth0=10.0.0.1/ 24");   /* not digits */
	assert_parse_rejects("eth0=10.0.0.1/+24", "eth0=10.0.0.1/+24");
	assert_parse_rejects("eth0=10.0.0.1/-0", "eth0=10.0.0.1/-0");
	assert_parse_rejects("=10.0.0.1/24", "=10.0.0.1/24"); /* no ifname */
	assert_parse_rejects("abcdefghijklmnop=10.0.0.1/24", "abcdefghijklmnop=10.0.0.1/24");
	/* A bad item after a good one still fails the whole list. */
	assert_parse_rejects("eth0=10.0.0.1/24,ib0=10.1.0.1/40", "ib0=10.1.0.1/40");
}

/* --- dist_choose_node_addr for rank 0's node (MASTER_ADDR) --- */

/* MASTER first, then OTHERS: the node table as the shim builds it. */
static int choose_master(const struct dist_addr_list *master, const struct dist_addr_list *others,
                         size_t nothers, struct dist_ifaddr *chosen, struct dist_err *err)
{
	struct dist_addr_list nodes[8];

	assert_true(nothers < 8);
	nodes[0] = *master;
	for (size_t i = 0; i < nothers; i++)
		nodes[i + 1] = others[i];
	return dist_choose_node_addr(nodes, nothers + 1, 0, chosen, err);
}

static void assert_chosen(const struct dist_ifaddr *chosen, const char *ifname, const char *addr,
                          uint8_t prefix)
{
	assert_string_equal(chosen->ifname, ifname);
	assert_int_equal(chosen->addr, ip(addr));
	assert_int_equal(chosen->prefix, prefix);
}

static void test_choose_skips_loopback_and_link_local(void **state)
{
	struct dist_addr_list master =
	        list_of("lo=127.0.0.1/8,eth9=169.254.3.4/16,eth0=10.0.0.1/24");
	struct dist_addr_list others[] = {list_of("lo=127.0.0.1/8,eth9=169.254.7.7/16")};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 1, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "10.0.0.1", 24);
}

static void test_choose_never_picks_docker0_shared_by_all(void **state)
{
	/* docker0 172.17.0.1/16 is on every node: its subnet is shared, yet
	 * the address is each node's own and must not be chosen. */
	struct dist_addr_list master = list_of("docker0=172.17.0.1/16,eth0=10.0.0.1/24");
	struct dist_addr_list others[] = {
	        list_of("docker0=172.17.0.1/16,eth0=10.0.0.2/24"),
	        list_of("docker0=172.17.0.1/16"),
	        list_of("docker0=172.17.0.1/16"),
	};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 3, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "10.0.0.1", 24);
}

static void test_choose_excludes_duplicate_address_whatever_its_name(void **state)
{
	/* Not a bridge-like name: the address itself rules it out. */
	struct dist_addr_list master = list_of("eth1=172.20.0.1/16,eth0=192.168.5.1/24");
	struct dist_addr_list others[] = {
	        list_of("eth1=172.20.0.1/16,eth0=192.168.9.1/24"),
	        list_of("eth1=172.20.0.1/16,eth0=192.168.7.1/24"),
	};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 2, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "192.168.5.1", 24);
}

static void test_choose_prefers_most_shared_subnet(void **state)
{
	/* eth0's subnet is shared by one other node, ib0's by all three. */
	struct dist_addr_list master = list_of("eth0=192.168.0.1/24,ib0=10.1.0.1/16");
	struct dist_addr_list others[] = {
	        list_of("eth0=192.168.0.2/24,ib0=10.1.0.2/16"),
	        list_of("eth0=192.168.1.3/24,ib0=10.1.0.3/16"),
	        list_of("eth0=192.168.2.4/24,ib0=10.1.0.4/16"),
	};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 3, &chosen, &err), 0);
	assert_chosen(&chosen, "ib0", "10.1.0.1", 16);
}

static void test_choose_shared_subnet_beats_bridge_name(void **state)
{
	/* A bridge-like name only breaks ties: a subnet the others share wins. */
	struct dist_addr_list master = list_of("eth0=10.9.0.1/24,br-lan=10.0.0.1/24");
	struct dist_addr_list others[] = {list_of("br-lan=10.0.0.2/24")};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 1, &chosen, &err), 0);
	assert_chosen(&chosen, "br-lan", "10.0.0.1", 24);
}

static void test_choose_routed_unique_address(void **state)
{
	/* Nodes on different routed subnets: no subnet is shared, the master's
	 * unique non-bridge address is still usable. */
	struct dist_addr_list master =
	        list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16,virbr0=192.168.122.1/24,"
	                "ens5=10.1.0.10/24");
	struct dist_addr_list others[] = {
	        list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16,ens5=10.2.0.10/24"),
	        list_of("lo=127.0.0.1/8,ens5=10.3.0.10/24"),
	};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 2, &chosen, &err), 0);
	assert_chosen(&chosen, "ens5", "10.1.0.10", 24);
}

static void test_choose_single_node_loopback_only(void **state)
{
	struct dist_addr_list master = list_of("lo=127.0.0.1/8");
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, NULL, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "lo", "127.0.0.1", 8);
}

static void test_choose_single_node_no_addresses(void **state)
{
	struct dist_addr_list master = {.count = 0};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, NULL, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "lo", "127.0.0.1", 8);
}

static void test_choose_single_node_bridge_listed_first(void **state)
{
	struct dist_addr_list master =
	        list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16,eth0=10.0.0.1/24");
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, NULL, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "10.0.0.1", 24);
}

static void test_choose_single_node_only_bridge(void **state)
{
	/* A bridge loses ties but is still better than nothing. */
	struct dist_addr_list master = list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16");
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, NULL, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "docker0", "172.17.0.1", 16);
}

static void test_choose_multi_node_nothing_usable(void **state)
{
	struct dist_addr_list master =
	        list_of("lo=127.0.0.1/8,eth9=169.254.1.1/16,docker0=172.17.0.1/16");
	struct dist_addr_list others[] = {list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16")};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 1, &chosen, &err), -1);
	assert_string_equal(err.msg, "rank 0's node has no IPv4 address the other nodes can reach "
	                             "(only loopback, link-local or addresses other nodes carry "
	                             "too); export MASTER_ADDR to name one");
}

static void test_choose_tie_goes_to_first_listed(void **state)
{
	/* Equal candidates: the first listed wins, so the choice is stable. */
	struct dist_addr_list master = list_of("eth0=10.1.0.1/24,eth1=10.2.0.1/24");
	struct dist_addr_list others[] = {list_of("eth0=10.1.0.2/24,eth1=10.2.0.2/24")};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(choose_master(&master, others, 1, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "10.1.0.1", 24);
	assert_int_equal(choose_master(&master, NULL, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "10.1.0.1", 24);
}

/* --- dist_local_ifname_for --- */

/* --- dist_choose_node_addr --- */

static void test_node_addr_each_node_its_own(void **state)
{
	struct dist_addr_list nodes[] = {
	        list_of("lo=127.0.0.1/8,eth0=10.77.0.1/24,docker0=172.17.0.1/16"),
	        list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16,ens5=10.77.0.2/24"),
	        list_of("lo=127.0.0.1/8,enp1s0=10.77.0.3/24,docker0=172.17.0.1/16"),
	};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_choose_node_addr(nodes, 3, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "eth0", "10.77.0.1", 24);
	assert_int_equal(dist_choose_node_addr(nodes, 3, 1, &chosen, &err), 0);
	assert_chosen(&chosen, "ens5", "10.77.0.2", 24);
	assert_int_equal(dist_choose_node_addr(nodes, 3, 2, &chosen, &err), 0);
	assert_chosen(&chosen, "enp1s0", "10.77.0.3", 24);
}

static void test_node_addr_single_node_loopback(void **state)
{
	struct dist_addr_list nodes[] = {list_of("lo=127.0.0.1/8")};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_choose_node_addr(nodes, 1, 0, &chosen, &err), 0);
	assert_chosen(&chosen, "lo", "127.0.0.1", 8);
}

static void test_node_addr_nothing_usable_names_the_node(void **state)
{
	struct dist_addr_list nodes[] = {
	        list_of("eth0=10.0.0.1/24"),
	        list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16"),
	        list_of("docker0=172.17.0.1/16,eth0=10.0.0.3/24"),
	};
	struct dist_ifaddr chosen;
	struct dist_err err = {{0}};

	(void)state;
	assert_int_equal(dist_choose_node_addr(nodes, 3, 1, &chosen, &err), -1);
	assert_string_equal(err.msg, "node 1 of the step has no IPv4 address the other nodes can "
	                             "reach (only loopback, link-local or addresses other nodes "
	                             "carry too)");
}

static void test_local_exact_address_wins(void **state)
{
	/* eth0's /8 also contains the master, but eth1 holds it. */
	struct dist_addr_list local = list_of("eth0=10.0.0.5/8,eth1=10.0.0.1/24");

	(void)state;
	assert_string_equal(dist_local_ifname_for(ip("10.0.0.1"), &local, ip("10.0.0.5")), "eth1");
}

static void test_local_same_subnet(void **state)
{
	struct dist_addr_list local =
	        list_of("lo=127.0.0.1/8,docker0=172.17.0.1/16,eth0=10.0.0.2/24");

	(void)state;
	assert_string_equal(dist_local_ifname_for(ip("10.0.0.1"), &local, ip("172.17.0.1")),
	                    "eth0");
}

static void test_local_route_source(void **state)
{
	struct dist_addr_list local = list_of("lo=127.0.0.1/8,ens5=10.2.0.7/24");

	(void)state;
	assert_string_equal(dist_local_ifname_for(ip("10.1.0.1"), &local, ip("10.2.0.7")), "ens5");
}

static void test_local_ifnames_differ_per_node(void **state)
{
	uint32_t master = ip("10.0.0.1");
	struct dist_addr_list node0 = list_of("eth0=10.0.0.1/24");
	struct dist_addr_list node1 = list_of("ens3=10.0.0.2/24");
	struct dist_addr_list node2 = list_of("enp1s0f0=10.0.0.3/24");

	(void)state;
	assert_string_equal(dist_local_ifname_for(master, &node0, 0), "eth0");
	assert_string_equal(dist_local_ifname_for(master, &node1, 0), "ens3");
	assert_string_equal(dist_local_ifname_for(master, &node2, 0), "enp1s0f0");
}

static void test_local_nothing_matches(void **state)
{
	struct dist_addr_list local = list_of("lo=127.0.0.1/8,eth0=10.2.0.7/24");
	struct dist_addr_list empty = {.count = 0};

	(void)state;
	assert_null(dist_local_ifname_for(ip("10.1.0.1"), &local, 0));
	/* A route source no interface holds does not match either. */
	assert_null(dist_local_ifname_for(ip("10.1.0.1"), &local, ip("10.9.9.9")));
	assert_null(dist_local_ifname_for(ip("10.1.0.1"), &empty, ip("10.2.0.7")));
	/* An unknown route source (0) matches no interface, not even an unconfigured one. */
	local = list_of("eth1=0.0.0.0/0");
	assert_null(dist_local_ifname_for(ip("10.1.0.1"), &local, 0));
}

static void test_local_loopback_not_chosen_by_subnet(void **state)
{
	struct dist_addr_list local = list_of("lo=127.0.0.1/8,eth9=169.254.1.1/16");

	(void)state;
	assert_null(dist_local_ifname_for(ip("127.0.0.2"), &local, 0));
	assert_null(dist_local_ifname_for(ip("169.254.9.9"), &local, 0));
	/* ...while the exact loopback address of a one-node step is found. */
	assert_string_equal(dist_local_ifname_for(ip("127.0.0.1"), &local, 0), "lo");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_ipv4_parse_and_format),
	        cmocka_unit_test(test_add_clamps_prefix_and_stops_at_max),
	        cmocka_unit_test(test_format),
	        cmocka_unit_test(test_format_too_long),
	        cmocka_unit_test(test_parse),
	        cmocka_unit_test(test_parse_empty_text_gives_empty_list),
	        cmocka_unit_test(test_round_trip),
	        cmocka_unit_test(test_parse_longest_ifname),
	        cmocka_unit_test(test_parse_rejects_malformed),
	        cmocka_unit_test(test_choose_skips_loopback_and_link_local),
	        cmocka_unit_test(test_choose_never_picks_docker0_shared_by_all),
	        cmocka_unit_test(test_choose_excludes_duplicate_address_whatever_its_name),
	        cmocka_unit_test(test_choose_prefers_most_shared_subnet),
	        cmocka_unit_test(test_choose_shared_subnet_beats_bridge_name),
	        cmocka_unit_test(test_choose_routed_unique_address),
	        cmocka_unit_test(test_choose_single_node_loopback_only),
	        cmocka_unit_test(test_choose_single_node_no_addresses),
	        cmocka_unit_test(test_choose_single_node_bridge_listed_first),
	        cmocka_unit_test(test_choose_single_node_only_bridge),
	        cmocka_unit_test(test_choose_multi_node_nothing_usable),
	        cmocka_unit_test(test_choose_tie_goes_to_first_listed),
	        cmocka_unit_test(test_node_addr_each_node_its_own),
	        cmocka_unit_test(test_node_addr_single_node_loopback),
	        cmocka_unit_test(test_node_addr_nothing_usable_names_the_node),
	        cmocka_unit_test(test_local_exact_address_wins),
	        cmocka_unit_test(test_local_same_subnet),
	        cmocka_unit_test(test_local_route_source),
	        cmocka_unit_test(test_local_ifnames_differ_per_node),
	        cmocka_unit_test(test_local_nothing_matches),
	        cmocka_unit_test(test_local_loopback_not_chosen_by_subnet),
	};

	return cmocka_run_group_tests_name("dist_net", tests, NULL, NULL);
}
