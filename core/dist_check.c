/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_check.h"

#include <stdio.h>
#include <string.h>

#include "dist_slurmenv.h"

static int parse_timeout(const char *option, const char *text, unsigned *timeout_s,
                         struct dist_err *err)
{
	uint32_t v;

	if (dist_parse_u32(text, &v) || v == 0 || v > DIST_CHECK_TIMEOUT_MAX)
		return dist_err_set(err, "%s: invalid timeout '%s': expected seconds, 1 to %u",
		                    option, text, DIST_CHECK_TIMEOUT_MAX);
	*timeout_s = v;
	return 0;
}

int dist_check_parse(const char *option, const char *text, struct dist_check *check,
                     struct dist_err *err)
{
	const char *colon = text ? strchr(text, ':') : NULL;
	size_t len = colon ? (size_t)(colon - text) : (text ? strlen(text) : 0);

	check->net = false;
	check->timeout_s = DIST_CHECK_TIMEOUT_DEFAULT;
	if (text && len == 4 && strncmp(text, "none", 4) == 0 && !colon)
		return 0;
	if (text && len == 3 && strncmp(text, "net", 3) == 0) {
		check->net = true;
		return colon ? parse_timeout(option, colon + 1, &check->timeout_s, err) : 0;
	}
	return dist_err_set(err,
	                    "%s: unknown check '%.40s' (known: net, net:SECONDS, none; e.g. "
	                    "%s=net)",
	                    option, text ? text : "", option);
}

uint32_t dist_check_ring_next(uint32_t node, uint32_t nnodes)
{
	return nnodes ? (node + 1) % nnodes : 0;
}

uint32_t dist_check_node_leader(const struct dist_world *w, uint32_t node)
{
	uint32_t first = 0;

	for (uint32_t k = 0; k < node && k < w->nnodes; k++)
		first += w->nodes[k].ntasks;
	return w->ranks_by_node[first];
}

/* NAME when it is one exact interface name (NCCL's "=eth0" is one too). */
static const char *exact_ifname(const char *name, bool nccl, char *buf, size_t len)
{
	if (!name || !name[0])
		return NULL;
	if (nccl && name[0] == '=')
		name++;
	else if (nccl)
		return NULL; /* a prefix: NCCL picks among matching interfaces */
	if (!name[0] || strpbrk(name, ",^= ") || strlen(name) >= len ||
	    strlen(name) >= DIST_IFNAME_MAX)
		return NULL;
	snprintf(buf, len, "%s", name);
	return buf;
}

const char *dist_check_user_ifname(const char *gloo, const char *nccl, char *buf, size_t len)
{
	const char *name = exact_ifname(gloo, false, buf, len);

	return name ? name : exact_ifname(nccl, true, buf, len);
}
