/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_stepnodes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dist_list.h"
#include "dist_slurmenv.h"

static bool is_identity(const uint32_t *order, uint32_t n)
{
	for (uint32_t k = 0; order && k < n; k++)
		if (order[k] != k)
			return false;
	return true;
}

/* A NodeAddr goes into a comma- and space-separated text as it is. */
static bool addr_ok(const char *addr)
{
	return addr && addr[0] && !strpbrk(addr, ", \t\n");
}

int dist_stepnodes_format(const struct dist_stepnodes *s, struct dist_buf *out,
                          struct dist_err *err)
{
	if (s->nnodes == 0 || (s->naddrs != 1 && s->naddrs != s->nnodes))
		return dist_err_set(err, "a step's node table needs 1 or %u addresses", s->nnodes);
	dist_buf_appendf(out, "%u.%u %u ", s->job, s->step, s->nnodes);
	if (is_identity(s->order, s->nnodes))
		dist_buf_append(out, "-");
	for (uint32_t k = 0; !is_identity(s->order, s->nnodes) && k < s->nnodes; k++)
		dist_buf_appendf(out, "%s%u", k ? "," : "", s->order[k]);
	for (uint32_t k = 0; k < s->naddrs; k++) {
		if (!addr_ok(s->addrs[k]))
			return dist_err_set(err, "NodeAddr '%.40s' cannot be handed to the tasks",
			                    s->addrs[k] ? s->addrs[k] : "");
		dist_buf_appendf(out, "%c%s", k ? ',' : ' ', s->addrs[k]);
	}
	return out->failed ? dist_err_set(err, "out of memory") : 0;
}

/* "A.B " at *P. */
static int parse_ids(const char **p, struct dist_stepnodes *s)
{
	char *end;

	if (dist_parse_u32_prefix(*p, &s->job, &end) || *end != '.' ||
	    dist_parse_u32_prefix(end + 1, &s->step, &end) || *end != ' ' ||
	    dist_parse_u32_prefix(end + 1, &s->nnodes, &end) || *end != ' ' || s->nnodes == 0)
		return -1;
	*p = end + 1;
	return 0;
}

/* ORDER at *P: "-" or a permutation of 0..nnodes-1. */
static int parse_order(const char **p, struct dist_stepnodes *s)
{
	bool *seen;
	char *end;

	if ((*p)[0] == '-' && (*p)[1] == ' ') {
		*p += 2;
		return 0;
	}
	s->order = calloc(s->nnodes, sizeof(*s->order));
	seen = calloc(s->nnodes, sizeof(*seen));
	for (uint32_t k = 0; s->order && seen && k < s->nnodes; k++) {
		if (dist_parse_u32_prefix(*p, &s->order[k], &end) || s->order[k] >= s->nnodes ||
		    seen[s->order[k]] || *end != (k + 1 < s->nnodes ? ',' : ' '))
			break;
		seen[s->order[k]] = true;
		*p = end + 1;
		if (k + 1 == s->nnodes) {
			free(seen);
			return 0;
		}
	}
	free(seen);
	return -1;
}

static int parse_addrs(const char *p, struct dist_stepnodes *s)
{
	uint32_t n = dist_count_list_items(p);
	const char *item;
	size_t len;

	if (n != 1 && n != s->nnodes)
		return -1;
	s->addrs = calloc(n, sizeof(*s->addrs));
	for (uint32_t k = 0; s->addrs && k < n && dist_list_next(&p, ',', &item, &len); k++) {
		s->addrs[k] = strndup(item, len);
		if (!s->addrs[k] || !addr_ok(s->addrs[k]))
			return -1;
		s->naddrs = k + 1;
	}
	return s->addrs && s->naddrs == n ? 0 : -1;
}

int dist_stepnodes_parse(const char *text, struct dist_stepnodes *s, struct dist_err *err)
{
	const char *p = text;

	memset(s, 0, sizeof(*s));
	if (!p || parse_ids(&p, s) || parse_order(&p, s) || parse_addrs(p, s)) {
		dist_stepnodes_free(s);
		return dist_err_set(err, "malformed step node table '%.60s'", text ? text : "");
	}
	return 0;
}

void dist_stepnodes_free(struct dist_stepnodes *s)
{
	for (uint32_t k = 0; s->addrs && k < s->naddrs; k++)
		free(s->addrs[k]);
	free(s->addrs);
	free(s->order);
	s->addrs = NULL;
	s->order = NULL;
	s->naddrs = 0;
}
