/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sockets of the network check (--check net): listeners that accept
 * and let go of the other nodes' connections while the tasks wait at the
 * fence, and connections bounded in time, each from a chosen source
 * address, all at once. */
#ifndef SHIM_NETCHECK_H
#define SHIM_NETCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_port.h"

struct netcheck_listener;

/* Listens on PORT on every address, accepting in a thread of its own once
 * netcheck_listener_allow has said from where (docs/security.md, "Network
 * check"): a connection from one of those addresses is held until its
 * other end closes (so no TIME_WAIT is left on this port), up to a bound,
 * any other closed at once. Until then connections wait in the backlog,
 * their connect already complete. Out of descriptors, a connection is
 * accepted and dropped with a reserve descriptor, never spun on. */
int netcheck_listen(uint16_t port, struct netcheck_listener **out, struct dist_err *err);
/* The same on the first port of RANGE, from FIRST on, that can be bound. */
int netcheck_listen_any(const struct dist_port_range *range, uint16_t first,
                        struct netcheck_listener **out, struct dist_err *err);
uint16_t netcheck_listener_port(const struct netcheck_listener *l);
/* The step's nodes' addresses (N, IPv4, host byte order): the listener
 * serves these only, from now on. L may be NULL (nothing to do). */
void netcheck_listener_allow(struct netcheck_listener *l, const uint32_t *addrs, size_t n);
/* Stops accepting and closes every socket; the port is free again at
 * once (the connecting side closes first, so no TIME_WAIT is left here). */
void netcheck_listener_close(struct netcheck_listener *l);

/* One path to try. */
struct netcheck_path {
	uint32_t addr; /* IPv4, host byte order */
	uint16_t port;
	int error; /* out: 0 when connected, else an errno (ETIMEDOUT...) */
};

/* Connects to every path at once from SRC (0: the kernel's choice), each
 * bounded by TIMEOUT_S, and closes them again. */
void netcheck_connect(uint32_t src, struct netcheck_path *paths, size_t n, unsigned timeout_s);

#endif
