/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/dist_relay.c: the relay's MACs (OpenSSL's
 * HMAC-SHA-256 over a pinned message layout) and the key's text form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dist_relay.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/* The relay's wire format, pinned: HMAC-SHA-256 under the key of the label
 * (NUL-terminated), rank 0's nonce, the peer's, the rank (big-endian) and
 * the status, as Python's hmac module computes it independently. */
static void test_relay_mac_known_answer(void **state)
{
	uint8_t key[DIST_RELAY_KEY_LEN] = {1}, n0[DIST_RELAY_NONCE_LEN] = {3};
	uint8_t np[DIST_RELAY_NONCE_LEN] = {4}, m[DIST_RELAY_MAC_LEN];
	char text[2 * DIST_RELAY_MAC_LEN + 1];

	(void)state;
	assert_int_equal(dist_relay_mac(key, DIST_RELAY_STATUS, n0, np, 1, 0, m), 0);
	hex(m, sizeof(m), text);
	assert_string_equal(text,
	                    "e37ee6323cf0ff01e94e8291eb327416cf844ac431d9bfaec2553a6e7ace5991");
}

/* Every input of a MAC changes it: a status, a rank, a nonce, a label or a
 * key other than the one signed is refused. */
static void test_relay_mac_binds_everything(void **state)
{
	uint8_t key[DIST_RELAY_KEY_LEN] = {1}, other[DIST_RELAY_KEY_LEN] = {2};
	uint8_t n0[DIST_RELAY_NONCE_LEN] = {3}, np[DIST_RELAY_NONCE_LEN] = {4};
	uint8_t m[DIST_RELAY_MAC_LEN], x[DIST_RELAY_MAC_LEN];

	(void)state;
	dist_relay_mac(key, DIST_RELAY_STATUS, n0, np, 1, 0, m);
	dist_relay_mac(key, DIST_RELAY_STATUS, n0, np, 1, 0, x);
	assert_true(dist_relay_mac_equal(m, x));
	dist_relay_mac(key, DIST_RELAY_STATUS, n0, np, 1, 3, x);
	assert_false(dist_relay_mac_equal(m, x));
	dist_relay_mac(key, DIST_RELAY_STATUS, n0, np, 2, 0, x);
	assert_false(dist_relay_mac_equal(m, x));
	dist_relay_mac(key, DIST_RELAY_ACK, n0, np, 1, 0, x);
	assert_false(dist_relay_mac_equal(m, x));
	dist_relay_mac(key, DIST_RELAY_STATUS, np, n0, 1, 0, x);
	assert_false(dist_relay_mac_equal(m, x));
	dist_relay_mac(other, DIST_RELAY_STATUS, n0, np, 1, 0, x);
	assert_false(dist_relay_mac_equal(m, x));
}

static void test_relay_key_text(void **state)
{
	uint8_t key[DIST_RELAY_KEY_LEN], back[DIST_RELAY_KEY_LEN];
	char text[DIST_RELAY_KEY_HEX], bad[DIST_RELAY_KEY_HEX];

	(void)state;
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 37 + 5);
	dist_relay_key_format(key, text);
	assert_int_equal(strlen(text), 64);
	assert_int_equal(dist_relay_key_parse(text, back), 0);
	assert_memory_equal(key, back, sizeof(key));
	assert_int_equal(dist_relay_key_parse(NULL, back), -1);
	assert_int_equal(dist_relay_key_parse("", back), -1);
	assert_int_equal(dist_relay_key_parse("00ff", back), -1);
	memcpy(bad, text, sizeof(bad));
	bad[10] = 'g';
	assert_int_equal(dist_relay_key_parse(bad, back), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_relay_mac_known_answer),
	        cmocka_unit_test(test_relay_mac_binds_everything),
	        cmocka_unit_test(test_relay_key_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
