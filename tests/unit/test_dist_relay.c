/* Unit tests for core/dist_relay.c: SHA-256 and HMAC-SHA-256 against the
 * published vectors, the relay's MACs and the key's text form. */
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

static void test_sha256_vectors(void **state)
{
	uint8_t d[32];
	char text[65];
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	dist_sha256("abc", 3, d);
	hex(d, 32, text);
	assert_string_equal(text,
	                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	dist_sha256("", 0, d);
	hex(d, 32, text);
	assert_string_equal(text,
	                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	dist_sha256(two_blocks, strlen(two_blocks), d);
	hex(d, 32, text);
	assert_string_equal(text,
	                    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* RFC 4231, test cases 2 and 6 (a key longer than a block). */
static void test_hmac_vectors(void **state)
{
	static const char msg6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	uint8_t d[32], key6[131];
	char text[65];

	(void)state;
	dist_hmac_sha256((const uint8_t *)"Jefe", 4, "what do ya want for nothing?", 28, d);
	hex(d, 32, text);
	assert_string_equal(text,
	                    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(key6, 0xaa, sizeof(key6));
	dist_hmac_sha256(key6, sizeof(key6), msg6, strlen(msg6), d);
	hex(d, 32, text);
	assert_string_equal(text,
	                    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
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
	        cmocka_unit_test(test_sha256_vectors),
	        cmocka_unit_test(test_hmac_vectors),
	        cmocka_unit_test(test_relay_mac_binds_everything),
	        cmocka_unit_test(test_relay_key_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
