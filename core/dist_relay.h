/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launcher relay's authentication (docs/security.md, "launcher relay"):
 * a key every task of the step shares and no one else has, and MACs
 * (HMAC-SHA-256, OpenSSL's) over each message, bound to both sides' nonces so that
 * nothing seen on one connection can be replayed on another. */
#ifndef DIST_RELAY_H
#define DIST_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIST_RELAY_KEY_LEN   32
#define DIST_RELAY_NONCE_LEN 16
#define DIST_RELAY_MAC_LEN   32
/* The key as text: lower-case hex, its NUL included. */
#define DIST_RELAY_KEY_HEX (2 * DIST_RELAY_KEY_LEN + 1)

/* What a MAC is over: who says it, to which connection, about what. */
enum dist_relay_label {
	DIST_RELAY_PEER,   /* a waiting task: "I am RANK of the step" */
	DIST_RELAY_ACK,    /* rank 0: "I am the step's rank 0 and took RANK" */
	DIST_RELAY_STATUS, /* rank 0: "the launcher ended with STATUS" */
};

/* The MAC of LABEL for the connection with rank 0's nonce N0 and the
 * peer's NP, about RANK and STATUS (0 where the label has none): 0, or -1
 * when OpenSSL cannot compute it (no provider with SHA-256: an
 * OPENSSL_CONF that loads none), MAC then unusable. */
int dist_relay_mac(const uint8_t key[DIST_RELAY_KEY_LEN], enum dist_relay_label label,
                   const uint8_t n0[DIST_RELAY_NONCE_LEN], const uint8_t np[DIST_RELAY_NONCE_LEN],
                   uint32_t rank, uint8_t status, uint8_t mac[DIST_RELAY_MAC_LEN]);
/* Compares two MACs in a time that does not depend on where they differ. */
bool dist_relay_mac_equal(const uint8_t a[DIST_RELAY_MAC_LEN], const uint8_t b[DIST_RELAY_MAC_LEN]);

void dist_relay_key_format(const uint8_t key[DIST_RELAY_KEY_LEN], char hex[DIST_RELAY_KEY_HEX]);
/* Parses exactly 64 hex digits; -1 for anything else. */
int dist_relay_key_parse(const char *hex, uint8_t key[DIST_RELAY_KEY_LEN]);

#endif
