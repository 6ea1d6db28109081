/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A NIC as libibverbs shows it (bind/rdma.h), a module of its own (base/module.h):
 * only a task whose plan names a NIC, or the doctor, loads it. */
#include "bind/rdma.h"

#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "dist_rdma.h"

#define PORT 1

static int gid_index_of(struct ibv_context *ctx, int table_len)
{
	struct ibv_gid_entry *entries = calloc((size_t)table_len, sizeof(*entries));
	struct dist_gid *gids = calloc((size_t)table_len, sizeof(*gids));
	ssize_t n = entries && gids ? ibv_query_gid_table(ctx, entries, (size_t)table_len, 0) : -1;
	int index = -1;

	for (ssize_t i = 0; i < n; i++) {
		gids[i].port = entries[i].port_num;
		gids[i].index = entries[i].gid_index;
		gids[i].roce_v2 = entries[i].gid_type == IBV_GID_TYPE_ROCE_V2;
		memcpy(gids[i].raw, entries[i].gid.raw, sizeof(gids[i].raw));
	}
	if (n > 0)
		index = dist_roce_v2_ipv4_gid(gids, (size_t)n, PORT);
	free(entries);
	free(gids);
	return index;
}

static int verbs_inspect(const char *nic, bool *active, int *gid_index, struct dist_err *err)
{
	int count = 0, rc = -1;
	struct ibv_device **list = ibv_get_device_list(&count);
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr port;

	*active = false;
	*gid_index = -1;
	for (int i = 0; list && i < count && !ctx; i++)
		if (strcmp(ibv_get_device_name(list[i]), nic) == 0)
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		dist_err_set(err, "libibverbs cannot open %s", nic);
	} else if (ibv_query_port(ctx, PORT, &port) != 0) {
		dist_err_set(err, "libibverbs cannot query port %d of %s", PORT, nic);
	} else {
		*active = port.state == IBV_PORT_ACTIVE;
		if (port.link_layer == IBV_LINK_LAYER_ETHERNET)
			*gid_index = gid_index_of(ctx, port.gid_tbl_len);
		rc = 0;
	}
	if (ctx)
		ibv_close_device(ctx);
	if (list)
		ibv_free_device_list(list);
	return rc;
}

MODULE_EXPORT const struct rdma_module dist_shim_module_verbs = {MODULE_ABI, verbs_inspect};
