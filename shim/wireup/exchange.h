/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one exchange (wireup/exchange.c) as an object of its own, internal to
 * wireup/: what one task's exchange holds from before the fence until the
 * program starts, passed explicitly instead of kept in statics. The
 * transport is a parameter, so that a test drives the exchange through a
 * fake one (tests/unit/test_wireup_exchange.c); wireup_exchange loads the
 * step's PMI module and hands its transport here.
 *
 * Ownership: the tables a successful exchange_run points the world at
 * (dist_world.nodes, .tasks, .ranks_by_node, .node_extras) belong to the
 * exchange and stay valid until exchange_free. wireup_exchange never frees
 * the exchange it ran: the world it filled is used up to the exec, which
 * releases everything. */
#ifndef SHIM_WIREUP_EXCHANGE_H
#define SHIM_WIREUP_EXCHANGE_H

#include "dist_err.h"
#include "dist_world.h"
#include "wireup/transport.h"
#include "wireup/wireup.h"

struct exchange;

/* An exchange through T for REQ, which must stay valid while exchange_run
 * runs; NULL when memory ran out. */
struct exchange *exchange_create(const struct wireup_transport *t,
                                 const struct wireup_request *req);

/* Everything wireup_exchange does once its transport is loaded: connects
 * (T's init fills W's ranks), puts this task's part, fences and reads the
 * others' (wireup/wireup.h says what LOCAL_FAILURE and the result mean).
 * Once per exchange. */
enum wireup_result exchange_run(struct exchange *ex, const char *local_failure,
                                struct dist_world *w, struct dist_err *err);

/* Frees EX and the tables any world it filled points into; NULL is none. */
void exchange_free(struct exchange *ex);

#endif
