/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network check (--check net) over the exchange's PMI: each node's
 * first task listens before the fence (rank 0 also on the master port);
 * after it, connects to the master and to the next node of a ring from the
 * interface the contract names; a second fence carries every node's result,
 * so that every task starts the program or none does. */
#ifndef SHIM_WIREUP_CHECK_H
#define SHIM_WIREUP_CHECK_H

#include "dist_net.h"
#include "wireup/transport.h"
#include "wireup/wireup.h"

struct netcheck_listener;

/* What a node's first task listens on for the check, from before the first
 * fence until every node has tried its paths: one set an exchange (its
 * struct exchange holds it), all NULL before wireup_check_listen. */
struct check_listeners {
	struct netcheck_listener *ring, *master;
};

/* Before the first fence, into L. MASTER_PORT (rank 0) is the port the
 * program's master will use, 0 when the user named the master. */
int wireup_check_listen(struct check_listeners *l, const struct wireup_transport *t,
                        const struct wireup_request *req, const struct dist_world *w,
                        uint16_t master_port, struct dist_err *err);

/* After the exchange succeeded; LOCAL is this node's addresses. */
enum wireup_result wireup_check_run(struct check_listeners *l, const struct wireup_transport *t,
                                    const struct wireup_request *req, struct dist_world *w,
                                    const struct dist_addr_list *local, struct dist_err *err);

/* Closes what wireup_check_listen opened into L (also when the exchange
 * failed); L is then as before it. */
void wireup_check_close(struct check_listeners *l);

#endif
