/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_rdma.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ipv4_mapped(const uint8_t *raw)
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(raw, prefix, sizeof(prefix)) == 0;
}

int dist_roce_v2_ipv4_gid(const struct dist_gid *gids, size_t n, uint32_t port)
{
	for (size_t i = 0; i < n; i++)
		if (gids[i].port == port && gids[i].roce_v2 && ipv4_mapped(gids[i].raw))
			return (int)gids[i].index;
	return -1;
}

/* "0000:0000:0000:0000:0000:ffff:0a4d:0001" into 16 bytes. */
static int parse_gid(const char *text, uint8_t *raw)
{
	unsigned groups[8];
	char tail;

	if (sscanf(text, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x%c", &groups[0], &groups[1], &groups[2],
	           &groups[3], &groups[4], &groups[5], &groups[6], &groups[7], &tail) != 8)
		return -1;
	for (int i = 0; i < 8; i++) {
		raw[2 * i] = (uint8_t)(groups[i] >> 8);
		raw[2 * i + 1] = (uint8_t)groups[i];
	}
	return 0;
}

/* One row: DEV PORT INDEX GID [IPv4] VER [NETDEV]; 1 if it is DEV's. */
static int parse_row(char *line, const char *dev, struct dist_gid *gid)
{
	char *save = NULL, *fields[8];
	int n = 0;

	for (char *f = strtok_r(line, " \t", &save); f && n < 8; f = strtok_r(NULL, " \t", &save))
		fields[n++] = f;
	if (n < 5 || strcmp(fields[0], dev) != 0)
		return 0;
	for (int i = 4; i < n; i++) {
		if (strcmp(fields[i], "v1") == 0 || strcmp(fields[i], "v2") == 0) {
			char *end;

			gid->port = (uint32_t)strtoul(fields[1], &end, 10);
			if (*end)
				return -1;
			gid->index = (uint32_t)strtoul(fields[2], &end, 10);
			if (*end || parse_gid(fields[3], gid->raw))
				return -1;
			gid->roce_v2 = strcmp(fields[i], "v2") == 0;
			return 1;
		}
	}
	return -1;
}

int dist_gids_parse_show_gids(const char *text, const char *dev, struct dist_gid *gids, size_t max,
                              size_t *n, struct dist_err *err)
{
	char *copy = strdup(text), *save = NULL;
	int rc = 0;

	*n = 0;
	if (!copy)
		return dist_err_set(err, "out of memory");
	for (char *line = strtok_r(copy, "\n", &save); line && rc == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		struct dist_gid gid;
		int row;

		if (strncmp(line, "DEV", 3) == 0 || line[0] == '-' || line[0] == '\0')
			continue;
		row = parse_row(line, dev, &gid);
		if (row < 0)
			rc = dist_err_set(err, "malformed GID row '%s'", line);
		else if (row == 1 && *n == max)
			rc = dist_err_set(err, "more than %zu GIDs for %s", max, dev);
		else if (row == 1)
			gids[(*n)++] = gid;
	}
	free(copy);
	return rc;
}
