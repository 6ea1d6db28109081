/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_relay.h"

#include <string.h>

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
