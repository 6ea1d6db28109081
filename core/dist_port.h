/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* What a port is for. Every port the shim picks starts from one of these,
 * and only dist_port_first_for says where: a use starts from the first port
 * of a step id shifted by its own amount, so that one step's uses, and the
 * neighbouring steps of its job (whose first ports are consecutive), do not
 * all start on the same port. */
enum dist_port_use {
	DIST_PORT_MASTER, /* MASTER_PORT: the step's own slot, moved per attempt */
	DIST_PORT_RELAY,  /* the launcher relay (shim/relay/relay.c) */
	DIST_PORT_TASK,   /* one port per task (mode ps) */
	DIST_PORT_CHECK,  /* --dist-check=net's ring listener */
	DIST_PORT_HCCL,   /* HCCL's block, in blocks (dist_port_hccl_base) */
};

/* First port to try for USE by this job's step, in attempt RESTART of the
 * job (SLURM_RESTART_COUNT; only the master port moves with it). */
uint16_t dist_port_first_for(enum dist_port_use use, const struct dist_port_range *range,
                             uint32_t jobid, uint32_t stepid, uint32_t restart);

/* The spread under every use: a job and step id to a port of RANGE. */
uint16_t dist_port_first(const struct dist_port_range *range, uint32_t jobid, uint32_t stepid);

/* HCCL (mode ascend) listens on this many ports from its base port. */
#define DIST_HCCL_PORTS 32

/* Splits RANGE for a step that also needs HCCL's ports: the top half (whole
 * blocks of DIST_HCCL_PORTS) holds HCCL's blocks, the rest but one guard
 * port holds the master's and every other port the shim picks, so that none
 * of them can fall inside HCCL's block (the guard keeps MASTER_PORT+1 out
 * too). Fails when RANGE has fewer than 2 * DIST_HCCL_PORTS ports. */
int dist_port_split_hccl(const struct dist_port_range *range, struct dist_port_range *master,
                         struct dist_port_range *hccl, struct dist_err *err);

/* The first port of this job's and step's HCCL block inside HCCL (a range
 * from dist_port_split_hccl): the same on every node, spread by job and step
 * as master ports are. */
uint16_t dist_port_hccl_base(const struct dist_port_range *hccl, uint32_t jobid, uint32_t stepid);

typedef bool (*dist_port_free_fn)(uint16_t port, void *ctx);

/* First free port from FIRST on, wrapping inside RANGE. */
int dist_port_pick(const struct dist_port_range *range, uint16_t first, dist_port_free_fn is_free,
                   void *ctx, uint16_t *port, struct dist_err *err);

#endif
