/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launcher relay's protocol over one connected socket, both sides
 * (docs/security.md, "launcher relay"). Rank 0 greets with a magic and its
 * nonce; a peer answers with its rank, its own nonce and the PEER MAC; rank
 * 0 acknowledges with the ACK MAC; then sends heartbeats (RELAY_MSG_ALIVE)
 * and finally RELAY_MSG_STATUS, the status and the STATUS MAC. The MACs
 * come from MACS: the crypto module in the shim, core's functions in the
 * unit tests (tests/unit/test_relay_handshake.c). */
#ifndef SHIM_RELAY_HANDSHAKE_H
#define SHIM_RELAY_HANDSHAKE_H

#include <stddef.h>
#include <stdint.h>

#include "base/module.h"
#include "dist_err.h"
#include "dist_relay.h"

/* How long either side waits for the other's part of the handshake. */
#define RELAY_HANDSHAKE_S 10

#define RELAY_MAGIC_LEN    4
#define RELAY_GREETING_LEN (RELAY_MAGIC_LEN + DIST_RELAY_NONCE_LEN)
#define RELAY_HELLO_LEN    (4 + DIST_RELAY_NONCE_LEN + DIST_RELAY_MAC_LEN)
#define RELAY_STATUS_LEN   (2 + DIST_RELAY_MAC_LEN)
#define RELAY_MSG_ALIVE    'h'
#define RELAY_MSG_STATUS   'S'

/* What a peer's handshake came to. */
enum relay_result {
	RELAY_OK = 0,
	/* Rank 0's side said something wrong: not the step's rank 0. */
	RELAY_REFUSED = -1,
	/* Nothing came back (closed, or silent for RELAY_HANDSHAKE_S): rank 0
	 * may be busy with strangers' connections; worth another try. */
	RELAY_UNANSWERED = -2,
};

/* One connection: both nonces and the rank the peer proved. */
struct relay_session {
	uint8_t n0[DIST_RELAY_NONCE_LEN]; /* rank 0's */
	uint8_t np[DIST_RELAY_NONCE_LEN]; /* the peer's */
	uint32_t rank;
};

int relay_random(void *buf, size_t len);
/* Writes all of BUF to FD, waiting at most a second whenever it is full. */
int relay_send_all(int fd, const void *buf, size_t len);
/* Reads exactly LEN bytes, giving up after SECONDS one-second waits with
 * nothing (counted in waits, not by the clock, so that a suspended job does
 * not find its time up the moment it resumes): 0, RELAY_UNANSWERED when
 * the other side closed or stayed silent before sending any of it,
 * RELAY_REFUSED when it stopped part way. */
int relay_read_within(int fd, void *buf, size_t len, unsigned seconds);

/* Rank 0: a fresh nonce in S and the greeting that carries it. */
int relay_greeting(struct relay_session *s, uint8_t greeting[RELAY_GREETING_LEN]);
/* Rank 0: whether HELLO proves the key for S's nonce; 0 with S's rank and
 * peer nonce set, -1 if not or if no MAC can be computed. */
int relay_check_hello(const struct relay_mac_module *macs, const uint8_t *key,
                      const uint8_t hello[RELAY_HELLO_LEN], struct relay_session *s);
/* Rank 0: the acknowledgement of S and the message carrying STATUS to it;
 * -1 if no MAC can be computed. */
int relay_ack(const struct relay_mac_module *macs, const uint8_t *key,
              const struct relay_session *s, uint8_t ack[DIST_RELAY_MAC_LEN]);
int relay_status_msg(const struct relay_mac_module *macs, const uint8_t *key,
                     const struct relay_session *s, uint8_t status, uint8_t msg[RELAY_STATUS_LEN]);

/* A waiting task on a connected FD: says it is RANK and checks that the
 * other side has the key before believing anything it says. */
enum relay_result relay_handshake(int fd, const struct relay_mac_module *macs, const uint8_t *key,
                                  uint32_t rank, struct relay_session *s);
/* After the handshake: heartbeats, then the status with its MAC. The status
 * (0-255), or -1 with ERR set (WHERE names rank 0) when rank 0 went away,
 * was silent for SILENCE_S seconds or sent what does not carry the key. */
int relay_read_status(int fd, const struct relay_mac_module *macs, const uint8_t *key,
                      const struct relay_session *s, unsigned silence_s, const char *where,
                      struct dist_err *err);

#endif
