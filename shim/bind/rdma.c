/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bind/rdma.h through its module (rdma_verbs_mod.c): libibverbs is loaded only when a
 * plan names a NIC. */
#include "bind/rdma.h"

#include "base/module.h"

int rdma_inspect(const char *nic, bool *active, int *gid_index, struct dist_err *err)
{
	const struct rdma_module *verbs = module_verbs(err);

	*active = false;
	*gid_index = -1;
	return verbs ? verbs->inspect(nic, active, gid_index, err) : -1;
}
