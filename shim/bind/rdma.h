/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An RDMA device as libibverbs shows it: is its port up, and which GID NCCL
 * should use over RoCE. */
#ifndef SHIM_RDMA_H
#define SHIM_RDMA_H

#include <stdbool.h>

#include "dist_err.h"

/* Port 1 of NIC: ACTIVE or not, and its RoCE v2 IPv4 GID index (-1 on
 * InfiniBand or when there is none). -1 when libibverbs cannot open NIC. */
int rdma_inspect(const char *nic, bool *active, int *gid_index, struct dist_err *err);

#endif
