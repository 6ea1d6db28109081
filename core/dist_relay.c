#include "dist_relay.h"

#include <string.h>

static const uint32_t sha256_k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};

struct sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t used;
	uint64_t total;
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256 *s, const uint8_t *p)
{
	uint32_t w[64], v[8], t1, t2;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 7] + (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	memcpy(v, s->h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		     ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha256_k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
		     ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof(h0));
	s->used = 0;
	s->total = 0;
}

static void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;

	s->total += len;
	while (len > 0) {
		size_t n = sizeof(s->block) - s->used < len ? sizeof(s->block) - s->used : len;

		memcpy(s->block + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used == sizeof(s->block)) {
			sha256_block(s, s->block);
			s->used = 0;
		}
	}
}

static void sha256_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->total * 8;
	uint8_t pad = 0x80, zero = 0, len[8];

	sha256_update(s, &pad, 1);
	while (s->used != 56)
		sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, len, sizeof(len));
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void dist_sha256(const void *data, size_t len, uint8_t out[32])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, len);
	sha256_final(&s, out);
}

void dist_hmac_sha256(const uint8_t *key, size_t key_len, const void *msg, size_t len,
                      uint8_t out[32])
{
	uint8_t k[64] = {0}, pad[64], inner[32];
	struct sha256 s;

	if (key_len > sizeof(k))
		dist_sha256(key, key_len, k);
	else
		memcpy(k, key, key_len);
	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, msg, len);
	sha256_final(&s, inner);
	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&s);
	sha256_update(&s, pad, sizeof(pad));
	sha256_update(&s, inner, sizeof(inner));
	sha256_final(&s, out);
}

void dist_relay_mac(const uint8_t key[DIST_RELAY_KEY_LEN], enum dist_relay_label label,
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
	dist_hmac_sha256(key, DIST_RELAY_KEY_LEN, msg, n, mac);
}

bool dist_relay_mac_equal(const uint8_t a[DIST_RELAY_MAC_LEN], const uint8_t b[DIST_RELAY_MAC_LEN])
{
	uint8_t diff = 0;

	for (size_t i = 0; i < DIST_RELAY_MAC_LEN; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

void dist_relay_key_format(const uint8_t key[DIST_RELAY_KEY_LEN], char hex[DIST_RELAY_KEY_HEX])
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < DIST_RELAY_KEY_LEN; i++) {
		hex[2 * i] = digits[key[i] >> 4];
		hex[2 * i + 1] = digits[key[i] & 15];
	}
	hex[2 * DIST_RELAY_KEY_LEN] = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int dist_relay_key_parse(const char *hex, uint8_t key[DIST_RELAY_KEY_LEN])
{
	if (!hex || strlen(hex) != 2 * DIST_RELAY_KEY_LEN)
		return -1;
	for (size_t i = 0; i < DIST_RELAY_KEY_LEN; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		key[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
