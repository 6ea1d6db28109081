/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This node's Ascend NPUs, for mode ascend: read by the node's first task
 * before the fence, so that a missing hccn.conf or device address stops the
 * whole step at once, naming the node. */
#ifndef SHIM_NPU_LOCAL_H
#define SHIM_NPU_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_port.h"
#include "dist_world.h"

/* The first of HCCL's DIST_HCCL_PORTS ports inside HCCL (the part of the
 * site's range dist_port_split_hccl keeps for it): the same on every node,
 * different for jobs and steps sharing one. */
uint16_t npu_hccl_base_port(const struct dist_port_range *hccl);

/* "id=ip,..." for this node's tasks, after checking the layout, hccn.conf
 * (DIST_HCCN_CONF, default /etc/hccn.conf) and HCCL's ports. */
int npu_node_extra(const struct dist_world *w, char *buf, size_t len, struct dist_err *err);

#endif
