/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which address of rank 0's node every node can reach, and which local
 * interface reaches it. Pure: the shim gathers the addresses, tests record them. */
#ifndef DIST_NET_H
#define DIST_NET_H

#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_world.h"

/* IPv4 addresses of one node's interfaces that are considered: bounded by
 * one node, not by the job (dist_addr_list_add ignores any beyond). */
#define DIST_ADDRS_MAX 32

struct dist_ifaddr {
	char ifname[DIST_IFNAME_MAX];
	uint32_t addr; /* IPv4, host byte order */
	uint8_t prefix;
};

struct dist_addr_list {
	struct dist_ifaddr a[DIST_ADDRS_MAX];
	size_t count;
};

/* Appends one address; silently ignores addresses beyond DIST_ADDRS_MAX. */
void dist_addr_list_add(struct dist_addr_list *list, const char *ifname, uint32_t addr,
                        uint8_t prefix);

/* Wire form exchanged between nodes: "eth0=10.0.0.1/24,docker0=172.17.0.1/16". */
int dist_addr_list_format(const struct dist_addr_list *list, char *buf, size_t len,
                          struct dist_err *err);
int dist_addr_list_parse(const char *text, struct dist_addr_list *list, struct dist_err *err);

int dist_ipv4_parse(const char *text, uint32_t *addr);
void dist_ipv4_format(uint32_t addr, char buf[DIST_ADDR_MAX]);

/*
 * Picks the address by which every node of the step reaches NODES[WHICH]
 * (NODES holds one list per node): never loopback or link-local, never an
 * address another node also carries (a docker0-style bridge), preferring
 * the subnet most other nodes share, and among equals a name that does not
 * look like a container bridge. A step on one node with no usable address
 * gets 127.0.0.1 on "lo". Rank 0's node (which = 0) gives MASTER_ADDR.
 */
int dist_choose_node_addr(const struct dist_addr_list *nodes, size_t nnodes, size_t which,
                          struct dist_ifaddr *chosen, struct dist_err *err);

/*
 * Name of the local interface that reaches MASTER: the one holding it, else
 * one on the same subnet, else the one holding ROUTE_SRC (the source address
 * the kernel's routing picked, 0 if unknown). NULL when none matches.
 */
const char *dist_local_ifname_for(uint32_t master, const struct dist_addr_list *local,
                                  uint32_t route_src);

#endif
