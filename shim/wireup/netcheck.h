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

/* Listens on PORT on every address, accepting in a thread of its own. */
int netcheck_listen(uint16_t port, struct netcheck_listener **out, struct dist_err *err);
/* The same on the first port of RANGE, from FIRST on, that can be bound. */
int netcheck_listen_any(const struct dist_port_range *range, uint16_t first,
                        struct netcheck_listener **out, struct dist_err *err);
uint16_t netcheck_listener_port(const struct netcheck_listener *l);
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
