/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_net.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dist_addr_list_add(struct dist_addr_list *list, const char *ifname, uint32_t addr,
                        uint8_t prefix)
{
	struct dist_ifaddr *a;

	if (list->count == DIST_ADDRS_MAX)
		return;
	a = &list->a[list->count++];
	snprintf(a->ifname, sizeof(a->ifname), "%s", ifname);
	a->addr = addr;
	a->prefix = prefix > 32 ? 32 : prefix;
}

int dist_ipv4_parse(const char *text, uint32_t *addr)
{
	struct in_addr in;

	if (inet_pton(AF_INET, text, &in) != 1)
		return -1;
	*addr = ntohl(in.s_addr);
	return 0;
}

void dist_ipv4_format(uint32_t addr, char buf[DIST_ADDR_MAX])
{
	struct in_addr in = {.s_addr = htonl(addr)};

	inet_ntop(AF_INET, &in, buf, DIST_ADDR_MAX);
}

int dist_addr_list_format(const struct dist_addr_list *list, char *buf, size_t len,
                          struct dist_err *err)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < list->count; i++) {
		char ip[DIST_ADDR_MAX];
		int n;

		dist_ipv4_format(list->a[i].addr, ip);
		n = snprintf(buf + used, len - used, "%s%s=%s/%u", i ? "," : "", list->a[i].ifname,
		             ip, list->a[i].prefix);
		if (n < 0 || (size_t)n >= len - used)
			return dist_err_set(err, "address list too long");
		used += (size_t)n;
	}
	return 0;
}

/* Parses one "ifname=a.b.c.d/len" item. */
static int parse_item(const char *item, struct dist_addr_list *list)
{
	char ifname[DIST_IFNAME_MAX], ip[DIST_ADDR_MAX];
	const char *eq = strchr(item, '='), *slash = strchr(item, '/');
	uint32_t addr;
	char *end;
	long prefix;

	if (!eq || !slash || slash < eq || (size_t)(eq - item) >= sizeof(ifname) || eq == item ||
	    (size_t)(slash - eq - 1) >= sizeof(ip))
		return -1;
	memcpy(ifname, item, (size_t)(eq - item));
	ifname[eq - item] = '\0';
	memcpy(ip, eq + 1, (size_t)(slash - eq - 1));
	ip[slash - eq - 1] = '\0';
	if (slash[1] < '0' || slash[1] > '9')
		return -1;
	prefix = strtol(slash + 1, &end, 10);
	if (dist_ipv4_parse(ip, &addr) || *end != '\0' || prefix > 32)
		return -1;
	dist_addr_list_add(list, ifname, addr, (uint8_t)prefix);
	return 0;
}

int dist_addr_list_parse(const char *text, struct dist_addr_list *list, struct dist_err *err)
{
	char *copy = strdup(text), *save = NULL;

	list->count = 0;
	if (!copy)
		return dist_err_set(err, "out of memory");
	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (parse_item(item, list) != 0) {
			dist_err_set(err, "malformed address '%s'", item);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

static uint32_t netmask(uint8_t prefix)
{
	return prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
}

static bool same_subnet(uint32_t a, uint32_t b, uint8_t prefix)
{
	return ((a ^ b) & netmask(prefix)) == 0;
}

static bool is_loopback_or_link_local(uint32_t addr)
{
	return (addr >> 24) == 127 || (addr >> 16) == 0xa9fe || addr == 0;
}

static bool list_has_addr(const struct dist_addr_list *list, uint32_t addr)
{
	for (size_t i = 0; i < list->count; i++)
		if (list->a[i].addr == addr)
			return true;
	return false;
}

static bool list_has_subnet(const struct dist_addr_list *list, uint32_t addr, uint8_t prefix)
{
	for (size_t i = 0; i < list->count; i++)
		if (same_subnet(list->a[i].addr, addr, prefix))
			return true;
	return false;
}

/* Container and VM bridges carry addresses nobody outside the node can reach. */
static bool looks_like_local_bridge(const char *ifname)
{
	static const char *const prefixes[] = {"docker", "br-",    "virbr", "cni", "flannel",
	                                       "veth",   "podman", "lxcbr", "cali"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(ifname, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Higher is better; negative means unusable. NODES[WHICH] is A's own node. */
static long candidate_score(const struct dist_ifaddr *a, const struct dist_addr_list *nodes,
                            size_t nnodes, size_t which)
{
	long sharing = 0;

	if (is_loopback_or_link_local(a->addr))
		return -1;
	for (size_t n = 0; n < nnodes; n++) {
		if (n == which)
			continue;
		if (list_has_addr(&nodes[n], a->addr))
			return -1;
		if (list_has_subnet(&nodes[n], a->addr, a->prefix))
			sharing++;
	}
	/* Subnet sharing counts most; a bridge-like name only breaks ties. */
	return sharing * 2 + (looks_like_local_bridge(a->ifname) ? 0 : 1);
}

/* Best usable address of NODES[WHICH]; false when it has none. */
static bool choose_best(const struct dist_addr_list *nodes, size_t nnodes, size_t which,
                        struct dist_ifaddr *chosen)
{
	long best_score = -1;

	for (size_t i = 0; i < nodes[which].count; i++) {
		long score = candidate_score(&nodes[which].a[i], nodes, nnodes, which);

		if (score > best_score) {
			best_score = score;
			*chosen = nodes[which].a[i];
		}
	}
	return best_score >= 0;
}

static void choose_loopback(struct dist_ifaddr *chosen)
{
	memset(chosen, 0, sizeof(*chosen));
	snprintf(chosen->ifname, sizeof(chosen->ifname), "lo");
	chosen->addr = 0x7f000001;
	chosen->prefix = 8;
}

int dist_choose_node_addr(const struct dist_addr_list *nodes, size_t nnodes, size_t which,
                          struct dist_ifaddr *chosen, struct dist_err *err)
{
	if (choose_best(nodes, nnodes, which, chosen))
		return 0;
	if (nnodes == 1) {
		choose_loopback(chosen);
		return 0;
	}
	if (which == 0)
		return dist_err_set(err,
		                    "rank 0's node has no IPv4 address the other nodes can "
		                    "reach (only loopback, link-local or addresses other nodes "
		                    "carry too); export MASTER_ADDR to name one");
	return dist_err_set(err,
	                    "node %zu of the step has no IPv4 address the other nodes can reach "
	                    "(only loopback, link-local or addresses other nodes carry too)",
	                    which);
}

const char *dist_local_ifname_for(uint32_t master, const struct dist_addr_list *local,
                                  uint32_t route_src)
{
	for (size_t i = 0; i < local->count; i++)
		if (local->a[i].addr == master)
			return local->a[i].ifname;
	for (size_t i = 0; i < local->count; i++)
		if (!is_loopback_or_link_local(local->a[i].addr) &&
		    same_subnet(local->a[i].addr, master, local->a[i].prefix))
			return local->a[i].ifname;
	for (size_t i = 0; route_src && i < local->count; i++)
		if (local->a[i].addr == route_src)
			return local->a[i].ifname;
	return NULL;
}
