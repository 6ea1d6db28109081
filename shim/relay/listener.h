/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rank 0's side of the launcher relay: accepts connections from the step's
 * nodes on the relay's listening socket, takes each waiting task that
 * proves the key (handshake.h), keeps it alive with heartbeats and at the
 * end tells it the launcher's status. */
#ifndef SHIM_RELAY_LISTENER_H
#define SHIM_RELAY_LISTENER_H

#include <stdint.h>
#include <time.h>

#include "base/module.h"
#include "dist_world.h"
#include "relay/handshake.h"

/* Connections being checked at once: a new one beyond that closes the
 * oldest still unproven (a stranger's idle connections cannot keep a
 * waiting task out). */
#define RELAY_PENDING_MAX 32

/* One connection. */
struct relay_conn {
	int fd;
	uint32_t addr;  /* the peer's IPv4 address, network order */
	time_t expires; /* pending: when its hello is late */
	uint64_t seq;   /* pending: accepted after every lower one */
	struct relay_session s;
	uint8_t hello[RELAY_HELLO_LEN];
	size_t got;
};

struct relay_listener {
	const struct relay_mac_module *macs;
	const uint8_t *key;
	int listen_fd;
	const struct dist_world *w;
	struct relay_conn pending[RELAY_PENDING_MAX];
	struct relay_conn *peers; /* by rank - 1; fd -1 until that rank proved itself */
	uint32_t npeers, nconnected;
	uint64_t accepted;
	unsigned refusals;
};

/* Rank 0 of W, listening on LISTEN_FD, with KEY (which must outlive L). */
int relay_listener_init(struct relay_listener *l, const struct relay_mac_module *macs,
                        const uint8_t *key, int listen_fd, const struct dist_world *w,
                        struct dist_err *err);
/* Waits up to TIMEOUT_MS for connections and hellos, handling them. */
void relay_listener_serve(struct relay_listener *l, int timeout_ms);
/* Every HEARTBEAT_S, tells each waiting task rank 0 is alive. */
void relay_listener_heartbeat(struct relay_listener *l, time_t *next);
/* Sends STATUS to every waiting task, first waiting up to GRACE_S for those
 * not yet in; closes every connection (not the listening socket). */
void relay_listener_finish(struct relay_listener *l, int status, unsigned grace_s);
void relay_listener_free(struct relay_listener *l);

/* Rank 0 tells every waiting task it is alive this often; a waiting task
 * that hears nothing for RELAY_HEARTBEAT_S * RELAY_HEARTBEAT_MISSES gives up. */
#define RELAY_HEARTBEAT_S      5
#define RELAY_HEARTBEAT_MISSES 6

#endif
