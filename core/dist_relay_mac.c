/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The relay's MACs, apart from the key's text form (dist_relay.c) so that
 * the plugin, which only draws and formats keys, does not link OpenSSL. */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

#include "dist_relay.h"

/* OpenSSL's HMAC, not one of our own: nothing here should be new crypto.
 * A failure is an error, never a MAC: zeros in its place were accepted
 * from a peer that sent zeros (issue 24). */
static int hmac_sha256(const uint8_t *key, size_t key_len, const void *msg, size_t len,
                       uint8_t out[DIST_RELAY_MAC_LEN])
{
	unsigned int out_len = DIST_RELAY_MAC_LEN;

	if (!HMAC(EVP_sha256(), key, (int)key_len, msg, len, out, &out_len) ||
	    out_len != DIST_RELAY_MAC_LEN)
		return -1;
	return 0;
}

int dist_relay_mac(const uint8_t key[DIST_RELAY_KEY_LEN], enum dist_relay_label label,
                   const uint8_t n0[DIST_RELAY_NONCE_LEN], const uint8_t np[DIST_RELAY_NONCE_LEN],
                   uint32_t rank, uint8_t status, uint8_t mac[DIST_RELAY_MAC_LEN])
{
	static const char *const names[] = {"slurm-dist relay peer", "slurm-dist relay ack",
	                                    "slurm-dist relay status"};
	uint8_t msg[32 + 2 * DIST_RELAY_NONCE_LEN + 5] = {0};
	size_t n = strlen(names[label]) + 1;

	memcpy(msg, names[label], n);
	memcpy(msg + n, n0, DIST_RELAY_NONCE_LEN);
	memcpy(msg + n + DIST_RELAY_NONCE_LEN, np, DIST_RELAY_NONCE_LEN);
	n += 2 * DIST_RELAY_NONCE_LEN;
	for (int i = 0; i < 4; i++)
		msg[n++] = (uint8_t)(rank >> (24 - 8 * i));
	msg[n++] = status;
	return hmac_sha256(key, DIST_RELAY_KEY_LEN, msg, n, mac);
}

bool dist_relay_mac_equal(const uint8_t a[DIST_RELAY_MAC_LEN], const uint8_t b[DIST_RELAY_MAC_LEN])
{
	return CRYPTO_memcmp(a, b, DIST_RELAY_MAC_LEN) == 0;
}
