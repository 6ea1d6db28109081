/* The master port: spread over a site-configurable range by job and step so
 * that jobs and steps sharing a node start from different ports, then the
 * first free one from there. */
#ifndef DIST_PORT_H
#define DIST_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_err.h"

/* Below Linux's default ephemeral range (32768-60999), so ports the kernel
 * hands out for outgoing connections do not take ours. */
#define DIST_PORT_RANGE_DEFAULT "20000-31999"
/* How many ports, the first one included, are tried before giving up. */
#define DIST_PORT_TRIES 64

struct dist_port_range {
	uint16_t lo, hi;
};

/* Parses "LO-HI" with 1024 <= LO <= HI <= 65535. */
int dist_port_range_parse(const char *text, struct dist_port_range *range, struct dist_err *err);

/* First port to try for this job and step. */
uint16_t dist_port_first(const struct dist_port_range *range, uint32_t jobid, uint32_t stepid);

typedef bool (*dist_port_free_fn)(uint16_t port, void *ctx);

/* First free port from FIRST on, wrapping inside RANGE. */
int dist_port_pick(const struct dist_port_range *range, uint16_t first, dist_port_free_fn is_free,
                   void *ctx, uint16_t *port, struct dist_err *err);

#endif
