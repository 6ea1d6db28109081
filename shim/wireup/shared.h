/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A node's tasks read the exchange once between them. After the fence the
 * node's first task reads the step's layout and the node records through
 * the transport, and its reads are kept (wireup_shared_record); it leaves
 * them as text in the node's step directory. The node's other tasks read
 * that text back (wireup_shared_replay) and ask the transport only for what
 * it lacks: an ordinary task makes no request of its own to PMIx, however
 * many nodes the step has. Both hand out a transport (wireup/transport.h)
 * whose layout and get answer from what was kept and whose other members
 * are the real transport's, so that the exchange reads alike either way.
 * One process keeps or replays one exchange at a time. */
#ifndef SHIM_WIREUP_SHARED_H
#define SHIM_WIREUP_SHARED_H

#include "dist_err.h"
#include "wireup/transport.h"

/* REAL, whose layout and successful gets are kept from now on. */
const struct wireup_transport *wireup_shared_record(const struct wireup_transport *real);

/* What was kept, as text for the node's other tasks (malloc'd), or NULL
 * when memory ran out. */
char *wireup_shared_text(void);

/* A transport that answers from TEXT (what wireup_shared_text gave) and
 * asks REAL for anything TEXT does not hold; NULL (ERR) when TEXT is not
 * such a text. */
const struct wireup_transport *wireup_shared_replay(const struct wireup_transport *real,
                                                    const char *text, struct dist_err *err);

/* Drops what was kept or replayed. */
void wireup_shared_clear(void);

#endif
