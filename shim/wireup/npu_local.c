/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wireup/npu_local.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_npu.h"
#include "node/netlocal.h"
#include "node/stepids.h"
#include "wireup/wireup.h"

#define HCCN_CONF_DEFAULT "/etc/hccn.conf"
#define HCCN_CONF_MAX     (64 * 1024)

uint16_t npu_hccl_base_port(const struct dist_port_range *hccl)
{
	uint32_t jobid, stepid;

	(void)stepids_read(&jobid, &stepid, NULL);
	return dist_port_hccl_base(hccl, jobid, stepid);
}

static int read_file(const char *path, char *buf, size_t len, struct dist_err *err)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return dist_err_set(err, "cannot read %s: %s (set DIST_HCCN_CONF to its path)",
		                    path, strerror(errno));
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

static int check_hccl_ports(uint16_t base, struct dist_err *err)
{
	for (uint32_t p = base; p < (uint32_t)base + DIST_HCCL_PORTS && p <= 65535; p++)
		if (!netlocal_port_free((uint16_t)p, NULL))
			return dist_err_set(err, "HCCL's port %u (of %u-%u) is in use on this node",
			                    p, base, base + DIST_HCCL_PORTS - 1);
	return 0;
}

int npu_node_extra(const struct dist_world *w, char *buf, size_t len, struct dist_err *err)
{
	const char *path = getenv("DIST_HCCN_CONF") ? getenv("DIST_HCCN_CONF") : HCCN_CONF_DEFAULT;
	const char *groups = getenv("DIST_NPU_GROUPS");
	struct dist_npu npus[DIST_NPUS_MAX];
	uint32_t ids[DIST_NPUS_MAX];
	char *text;
	int rc = -1;

	if (dist_npu_ids(getenv("ASCEND_RT_VISIBLE_DEVICES"), w->local_size, ids, err) ||
	    dist_npu_check_layout(ids, w->local_size, !groups || strcmp(groups, "0") != 0, err) ||
	    check_hccl_ports(w->hccl_base_port, err))
		return -1;
	text = malloc(HCCN_CONF_MAX);
	if (!text)
		return dist_err_set(err, "out of memory");
	if (read_file(path, text, HCCN_CONF_MAX, err) == 0) {
		if (dist_hccn_lookup(text, ids, w->local_size, npus, err) == 0)
			rc = dist_npus_format(npus, w->local_size, buf, len, err);
		else /* a device hccn.conf has no address for: say which file */
			snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
			         " in %s", path);
	}
	free(text);
	return rc;
}
