/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* The step id a use spreads from. A job's steps get consecutive first
 * ports, so a use shifted by S ids starts S mod the range's size ports past
 * the master's (relay 4384, tasks 8768, check 1152 in the default range);
 * where two meet anyway, each still takes only a port free at the time. */
static uint32_t use_step(enum dist_port_use use, uint32_t stepid, uint32_t restart)
{
	switch (use) {
	case DIST_PORT_MASTER:
		/* A requeued job runs its steps again with the same ids: each
		 * attempt starts elsewhere (a prime stride), as the previous
		 * attempt's master may still hold its port on that node. */
		return stepid + restart * 613u;
	case DIST_PORT_RELAY:
		/* Held from before the exchange, while rank 0 searches for the
		 * master port from the master's first: kept off that search. */
		return stepid + 0x4000;
	case DIST_PORT_TASK:
		/* Several a node, taken one after another from the first:
		 * apart from both the master's and the relay's. */
		return stepid + 0x8000;
	case DIST_PORT_CHECK:
		/* Listening while the master's, the relay's and the tasks'
		 * ports are taken: apart from all three. */
		return stepid + 0xc000;
	case DIST_PORT_HCCL:
		/* Counted in HCCL's own blocks (dist_port_split_hccl), which no
		 * other use reaches; the shift is the one it has always had. */
		return stepid + 0x4000;
	}
	return stepid;
}

uint16_t dist_port_first_for(enum dist_port_use use, const struct dist_port_range *range,
                             uint32_t jobid, uint32_t stepid, uint32_t restart)
{
	return dist_port_first(range, jobid, use_step(use, stepid, restart));
}

int dist_port_split_hccl(const struct dist_port_range *range, struct dist_port_range *master,
                         struct dist_port_range *hccl, struct dist_err *err)
{
	uint32_t blocks = range_size(range) / 2 / DIST_HCCL_PORTS;
	uint32_t hccl_lo = (uint32_t)range->hi + 1 - blocks * DIST_HCCL_PORTS;

	if (blocks == 0)
		return dist_err_set(
		        err,
		        "port range %u-%u is too small for --dist-mode=ascend: it needs "
		        "at least %u ports (half of them for HCCL's blocks of %u)",
		        range->lo, range->hi, 2 * DIST_HCCL_PORTS, DIST_HCCL_PORTS);
	master->lo = range->lo;
	master->hi = (uint16_t)(hccl_lo - 2); /* hccl_lo - 1: the guard port */
	hccl->lo = (uint16_t)hccl_lo;
	hccl->hi = range->hi;
	return 0;
}

uint16_t dist_port_hccl_base(const struct dist_port_range *hccl, uint32_t jobid, uint32_t stepid)
{
	uint32_t blocks = range_size(hccl) / DIST_HCCL_PORTS;
	const struct dist_port_range block_range = {0, (uint16_t)(blocks ? blocks - 1 : 0)};

	if (blocks == 0)
		return hccl->lo;
	return (uint16_t)(hccl->lo +
	                  dist_port_first_for(DIST_PORT_HCCL, &block_range, jobid, stepid, 0) *
	                          DIST_HCCL_PORTS);
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
