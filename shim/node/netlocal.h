/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This node's IPv4 addresses and the kernel's route to a peer. */
#ifndef SHIM_NETLOCAL_H
#define SHIM_NETLOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_net.h"
#include "dist_port.h"

/* Addresses of the interfaces that are up, in the kernel's order. */
int netlocal_addrs(struct dist_addr_list *list, struct dist_err *err);

/* Source address the kernel would use to reach ADDR, 0 if it has no route. */
uint32_t netlocal_route_src(uint32_t addr);

/* Resolves a numeric IPv4 address or a host name to an IPv4 address. */
int netlocal_resolve(const char *host, uint32_t *addr);

/* True when nothing on this node listens on (or holds) TCP PORT. */
bool netlocal_port_free(uint16_t port, void *unused);

/* A non-blocking socket listening on PORT on every address, or -1. */
int netlocal_listen(uint16_t port);

/* The same on the first port of RANGE, from FIRST on (dist_port_pick's
 * walk), other than AVOID (0: none), that can be bound: the socket, its
 * port in *PORT; -1 when none can. */
int netlocal_listen_any(const struct dist_port_range *range, uint16_t first, uint16_t avoid,
                        uint16_t *port);

#endif
