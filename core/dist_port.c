#include "dist_port.h"

#include <stdlib.h>

static int parse_port(const char *s, char **end, long *port)
{
	if (*s < '0' || *s > '9')
		return -1;
	*port = strtol(s, end, 10);
	return *port >= 1024 && *port <= 65535 ? 0 : -1;
}

int dist_port_range_parse(const char *text, struct dist_port_range *range, struct dist_err *err)
{
	char *end;
	long lo, hi;

	if (!text || parse_port(text, &end, &lo) || *end != '-' || parse_port(end + 1, &end, &hi) ||
	    *end != '\0' || lo > hi)
		return dist_err_set(err,
		                    "invalid port range '%s': expected LO-HI with 1024 <= LO <= HI "
		                    "<= 65535, e.g. %s",
		                    text ? text : "", DIST_PORT_RANGE_DEFAULT);
	range->lo = (uint16_t)lo;
	range->hi = (uint16_t)hi;
	return 0;
}

static uint32_t range_size(const struct dist_port_range *range)
{
	return (uint32_t)range->hi - range->lo + 1;
}

uint16_t dist_port_first(const struct dist_port_range *range, uint32_t jobid, uint32_t stepid)
{
	/* Steps of one job (consecutive ids) get consecutive ports; jobs are
	 * strided by a prime larger than any range, which no range size divides,
	 * so neighbouring jobs never start on the same port. */
	uint64_t slot = ((uint64_t)jobid * 2654435761u + stepid) % range_size(range);

	return (uint16_t)(range->lo + slot);
}

int dist_port_pick(const struct dist_port_range *range, uint16_t first, dist_port_free_fn is_free,
                   void *ctx, uint16_t *port, struct dist_err *err)
{
	uint32_t size = range_size(range);
	uint32_t tries = size < DIST_PORT_TRIES ? size : DIST_PORT_TRIES;
	uint32_t offset = first >= range->lo && first <= range->hi ? first - range->lo : 0;

	for (uint32_t i = 0; i < tries; i++) {
		uint16_t candidate = (uint16_t)(range->lo + (offset + i) % size);

		if (is_free(candidate, ctx)) {
			*port = candidate;
			return 0;
		}
	}
	return dist_err_set(err,
	                    "no free port among %u tried from %u in %u-%u; widen port_range or "
	                    "export MASTER_PORT",
	                    tries, first, range->lo, range->hi);
}
