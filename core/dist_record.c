/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dist_record.h"

#include <stdio.h>
#include <string.h>

#include "dist_slurmenv.h"

/* Copies the next space-ended field of *P into OUT (LEN bytes); -1 when
 * there is no space, the field is empty or does not fit. */
static int next_field(const char **p, char *out, size_t len)
{
	const char *space = strchr(*p, ' ');
	size_t n;

	if (!space || space == *p)
		return -1;
	n = (size_t)(space - *p);
	if (n >= len)
		return -1;
	memcpy(out, *p, n);
	out[n] = '\0';
	*p = space + 1;
	return 0;
}

int dist_node_record_parse(const char *text, struct dist_node_record *rec, struct dist_err *err)
{
	const char *p;
	char gpus[16];

	memset(rec, 0, sizeof(*rec));
	/* No longer than the exchange carries, so that it formats back whole. */
	if (strnlen(text, DIST_RECORD_MAX) >= DIST_RECORD_MAX)
		return dist_err_set(err, "a node record longer than %d bytes", DIST_RECORD_MAX - 1);
	if (strncmp(text, DIST_RECORD_FAILED, strlen(DIST_RECORD_FAILED)) == 0) {
		rec->failed = true;
		snprintf(rec->why, sizeof(rec->why), "%s", text + strlen(DIST_RECORD_FAILED));
		return 0;
	}
	if (strncmp(text, DIST_RECORD_OK, strlen(DIST_RECORD_OK)) != 0)
		return dist_err_set(err, "a node record that is neither ok nor failed");
	p = text + strlen(DIST_RECORD_OK);
	if (next_field(&p, gpus, sizeof(gpus)) || dist_parse_u32(gpus, &rec->gpus) ||
	    next_field(&p, rec->ports, sizeof(rec->ports)) ||
	    next_field(&p, rec->extra, sizeof(rec->extra)))
		return dist_err_set(err, "a malformed node record");
	return dist_addr_list_parse(p, &rec->addrs, err);
}

static bool field_ok(const char *field)
{
	return field[0] && !strchr(field, ' ');
}

int dist_node_record_format(const struct dist_node_record *rec, char *text, size_t limit,
                            struct dist_err *err)
{
	struct dist_err ignored;
	int n;

	if (limit == 0)
		return dist_err_set(err, "no room for a node record");
	if (rec->failed) {
		snprintf(text, limit, DIST_RECORD_FAILED "%s", rec->why); /* cut if need be */
		return 0;
	}
	if (!field_ok(rec->ports) || !field_ok(rec->extra))
		return dist_err_set(err, "a node record's ports and extra must be non-empty "
		                         "and hold no space");
	n = snprintf(text, limit, DIST_RECORD_OK "%u %s %s ", rec->gpus, rec->ports, rec->extra);
	if (n < 0 || (size_t)n >= limit) {
		text[0] = '\0';
		return dist_err_set(err,
		                    "this node's record (ports, devices) is longer than the "
		                    "%zu bytes the exchange carries",
		                    limit - 1);
	}
	if (dist_addr_list_format(&rec->addrs, text + n, limit - (size_t)n, &ignored))
		text[n] = '\0';
	return 0;
}

int dist_task_ports_parse(const char *text, uint32_t n, uint16_t *ports)
{
	const char *p = text;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t port;
		char *end;

		if (dist_parse_u32_prefix(p, &port, &end) || port == 0 || port > 65535 ||
		    (*end != ',' && *end != '\0') || (*end == ',' && i + 1 == n) ||
		    (*end == '\0' && i + 1 < n))
			return -1;
		ports[i] = (uint16_t)port;
		p = end + (*end == ',');
	}
	return n > 0 || strcmp(text, "-") == 0 || text[0] == '\0' ? 0 : -1;
}
