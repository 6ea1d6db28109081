/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --dist-check: what the tasks prove before the program starts, and the
 * pure parts of the network check (which paths each node tries). */
#ifndef DIST_CHECK_H
#define DIST_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_world.h"

/* Long enough for a path through a congested switch, short enough that a
 * broken step ends in seconds, not at the program's first collective. */
#define DIST_CHECK_TIMEOUT_DEFAULT 5
#define DIST_CHECK_TIMEOUT_MAX     300

struct dist_check {
	bool net;           /* every node reaches the master and the next node */
	unsigned timeout_s; /* bound on each connection (net) */
};

/* "none", "net" or "net:SECONDS"; OPTION names the option in messages. */
int dist_check_parse(const char *option, const char *text, struct dist_check *check,
                     struct dist_err *err);

/* The node whose first task a node's first task connects to: the next one,
 * around a ring, so that every node is tried once as a source and once as a
 * destination with nnodes connections in all. */
uint32_t dist_check_ring_next(uint32_t node, uint32_t nnodes);

/* The first (lowest) rank of NODE, from the world's node tables. */
uint32_t dist_check_node_leader(const struct dist_world *w, uint32_t node);

/* The interface a program's sockets bind to, from a user's
 * GLOO_SOCKET_IFNAME or NCCL_SOCKET_IFNAME (each may be NULL): one exact
 * name, or NULL when neither names exactly one ("eth,ib", "^docker0" are
 * NCCL's prefix lists, which leave the choice to NCCL). */
const char *dist_check_user_ifname(const char *gloo, const char *nccl, char *buf, size_t len);

#endif
