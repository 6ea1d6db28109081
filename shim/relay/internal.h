/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the relay's files share and nothing else uses: relay.c (where rank
 * 0 listens, the key), launcher.c (rank 0: the launcher, its signals and
 * the listener, listener.c), client.c (a waiting task), handshake.c (the
 * protocol over one connection). */
#ifndef SHIM_RELAY_INTERNAL_H
#define SHIM_RELAY_INTERNAL_H

#include "base/module.h"
#include "relay/relay.h"

/* OpenSSL's HMAC from its module (base/module.h), checked to work: NULL
 * with ERR set when it cannot be loaded or computes no MAC. */
const struct relay_mac_module *relay_load_macs(struct dist_err *err);

/* A waiting task has no program to pass a signal to: it goes on waiting
 * for the launcher's status (Slurm's SIGKILL still ends it). */
void relay_wait_through_signals(void);

/* relay_wait with the MACs given: a waiting task of W, rank W->rank,
 * connecting from its node's address in W's node table. */
int relay_client_wait(const struct relay_mac_module *macs, const struct relay_params *p,
                      const struct dist_world *w, unsigned timeout_s, struct dist_err *err);

#endif
