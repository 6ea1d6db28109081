/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which GID of a RoCE HCA NCCL should use: the RoCE v2 GID that carries an
 * IPv4 address (::ffff:a.b.c.d), as TI-ONE presets NCCL_IB_GID_INDEX=3 on its
 * hardware. Pure: the shim reads the GID table through libibverbs; tests use
 * tables in the format of Mellanox's show_gids. */
#ifndef DIST_RDMA_H
#define DIST_RDMA_H

#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"

struct dist_gid {
	uint32_t port;
	uint32_t index;
	int roce_v2; /* 1 for RoCE v2, 0 for IB or RoCE v1 */
	uint8_t raw[16];
};

/* Index of PORT's first RoCE v2 GID holding an IPv4 address, or -1. */
int dist_roce_v2_ipv4_gid(const struct dist_gid *gids, size_t n, uint32_t port);

/* Reads DEV's rows of a show_gids table ("DEV PORT INDEX GID [IPv4] VER [NETDEV]",
 * GID as eight groups of four hex digits, VER v1 or v2). */
int dist_gids_parse_show_gids(const char *text, const char *dev, struct dist_gid *gids, size_t max,
                              size_t *n, struct dist_err *err);

#endif
