/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_npu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_list.h"
#include "dist_net.h"
#include "dist_slurmenv.h"

int dist_npu_ids(const char *visible, uint32_t local_size, uint32_t *ids, struct dist_err *err)
{
	const char *p = visible;
	uint32_t n = 0;

	if (local_size > DIST_NPUS_MAX)
		return dist_err_set(err, "%u tasks on one node: at most %d NPUs a server",
		                    local_size, DIST_NPUS_MAX);
	if (!visible || !*visible) {
		for (uint32_t i = 0; i < local_size; i++)
			ids[i] = i;
		return 0;
	}
	while (*p && n < local_size) {
		char *end;

		if (dist_parse_u32_prefix(p, &ids[n], &end) || (*end != ',' && *end != '\0'))
			return dist_err_set(err, "malformed ASCEND_RT_VISIBLE_DEVICES '%s'",
			                    visible);
		n++;
		p = *end == ',' ? end + 1 : end;
	}
	if (n < local_size)
		return dist_err_set(
		        err,
		        "ASCEND_RT_VISIBLE_DEVICES '%s' lists fewer NPUs than the %u tasks "
		        "on this node",
		        visible, local_size);
	return 0;
}

static bool distinct(const uint32_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = i + 1; j < n; j++)
			if (ids[i] == ids[j])
				return false;
	return true;
}

int dist_npu_check_layout(const uint32_t *ids, uint32_t n, bool groups, struct dist_err *err)
{
	if (n != 1 && n != 2 && n != 4 && n != 8)
		return dist_err_set(err, "%u NPUs on this node: HCCL needs 1, 2, 4 or 8 a server",
		                    n);
	if (!distinct(ids, n))
		return dist_err_set(err, "two tasks of this node would share an NPU");
	if (!groups)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] > 7)
			return dist_err_set(err, "NPU %u does not exist on an 8-device server",
			                    ids[i]);
		if (n < 8 && ids[i] / 4 != ids[0] / 4)
			return dist_err_set(
			        err,
			        "NPUs %u and %u are in different groups (0-3, 4-7): use 1, 2 "
			        "or 4 NPUs inside one group, or all 8",
			        ids[0], ids[i]);
	}
	return 0;
}

/* IP of device ID in TEXT, or -1. */
static int find_address(const char *text, uint32_t id, char *ip)
{
	char key[32];
	size_t klen = (size_t)snprintf(key, sizeof(key), "address_%u=", id);

	for (const char *line = text; *line;
	     line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0)) {
		const char *start = line + strspn(line, " \t");
		size_t vlen;
		uint32_t addr;
		char value[DIST_ADDR_MAX];

		if (strncmp(start, key, klen) != 0)
			continue;
		vlen = strcspn(start + klen, " \t\r\n");
		if (vlen == 0 || vlen >= sizeof(value))
			return -1;
		memcpy(value, start + klen, vlen);
		value[vlen] = '\0';
		if (dist_ipv4_parse(value, &addr))
			return -1;
		memcpy(ip, value, vlen + 1);
		return 0;
	}
	return -1;
}

int dist_hccn_lookup(const char *text, const uint32_t *ids, uint32_t n, struct dist_npu *npus,
                     struct dist_err *err)
{
	for (uint32_t i = 0; i < n; i++) {
		npus[i].id = ids[i];
		if (find_address(text, ids[i], npus[i].ip))
			return dist_err_set(err, "NPU %u has no valid address_%u=<ip> line", ids[i],
			                    ids[i]);
	}
	return 0;
}

int dist_npus_format(const struct dist_npu *npus, uint32_t n, char *buf, size_t len,
                     struct dist_err *err)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		int k = snprintf(buf + used, len - used, "%s%u=%s", i ? "," : "", npus[i].id,
		                 npus[i].ip);

		if (k < 0 || (size_t)k >= len - used)
			return dist_err_set(err, "NPU list too long");
		used += (size_t)k;
	}
	return 0;
}

int dist_npus_parse(const char *text, struct dist_npu *npus, uint32_t max, uint32_t *n,
                    struct dist_err *err)
{
	const char *cursor = text, *p;
	size_t len;

	*n = 0;
	while (dist_list_next(&cursor, ',', &p, &len)) {
		char item[DIST_ADDR_MAX + 16], *eq;
		uint32_t addr;

		if (*n == max || len == 0 || len >= sizeof(item))
			return dist_err_set(err, "malformed NPU list '%s'", text);
		memcpy(item, p, len);
		item[len] = '\0';
		eq = strchr(item, '=');
		if (!eq)
			return dist_err_set(err, "malformed NPU list '%s'", text);
		*eq = '\0';
		if (dist_parse_u32(item, &npus[*n].id) || dist_ipv4_parse(eq + 1, &addr))
			return dist_err_set(err, "malformed NPU list '%s'", text);
		snprintf(npus[*n].ip, sizeof(npus[*n].ip), "%s", eq + 1);
		(*n)++;
	}
	return 0;
}
