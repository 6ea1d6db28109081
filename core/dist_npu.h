/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Ascend NPUs: which devices a node's tasks use, their IPs from hccn.conf,
 * and the layouts HCCL accepts. Pure: the shim reads the files. */
#ifndef DIST_NPU_H
#define DIST_NPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_world.h"

/* NPUs of one server (8 on Atlas 800 training servers, 16 at most):
 * bounded by a node's hardware, not by the job. */
#define DIST_NPUS_MAX 16

struct dist_npu {
	uint32_t id;            /* physical device id */
	char ip[DIST_ADDR_MAX]; /* the device's own IP (hccn.conf address_<id>) */
};

/* The devices of a node's LOCAL_SIZE tasks, in local rank order: the
 * entries of VISIBLE (ASCEND_RT_VISIBLE_DEVICES) when set, else 0..n-1. */
int dist_npu_ids(const char *visible, uint32_t local_size, uint32_t *ids, struct dist_err *err);

/* HCCL's rules: 1, 2, 4 or 8 devices a server; on the older training cards
 * (GROUPS) devices 0-3 and 4-7 form two groups: a job uses 1, 2 or 4 inside
 * one group, or all 8. */
int dist_npu_check_layout(const uint32_t *ids, uint32_t n, bool groups, struct dist_err *err);

/* Fills NPUS[i] (ids IDS[i]) from hccn.conf's TEXT ("address_<id>=<ip>"
 * lines); a device without an address is an error naming it. */
int dist_hccn_lookup(const char *text, const uint32_t *ids, uint32_t n, struct dist_npu *npus,
                     struct dist_err *err);

/* Wire form in a node record: "0=192.168.100.1,1=192.168.101.1". */
int dist_npus_format(const struct dist_npu *npus, uint32_t n, char *buf, size_t len,
                     struct dist_err *err);
int dist_npus_parse(const char *text, struct dist_npu *npus, uint32_t max, uint32_t *n,
                    struct dist_err *err);

#endif
