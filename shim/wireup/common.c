/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dist_slurmenv.h"
#include "node/netlocal.h"
#include "wireup/transport.h"
#include "wireup/wireup.h"

int wireup_user_port(const struct wireup_request *req, uint16_t *port, struct dist_err *err)
{
	uint32_t v;

	*port = 0;
	if (!req->user_master_port)
		return 0;
	if (dist_parse_u32(req->user_master_port, &v) != 0 || v == 0 || v > 65535)
		return dist_err_set(err,
		                    "invalid MASTER_PORT '%s' in the environment: expected 1-65535",
		                    req->user_master_port);
	*port = (uint16_t)v;
	return 0;
}

/* Times Slurm requeued the job; 0 when it did not or says nothing. */
static uint32_t restart_count(void)
{
	uint32_t n;

	return dist_parse_u32(getenv("SLURM_RESTART_COUNT"), &n) == 0 ? n : 0;
}

uint16_t wireup_first_port(const struct dist_port_range *ports, uint32_t jobid, uint32_t stepid)
{
	return dist_port_first_for(DIST_PORT_MASTER, ports, jobid, stepid, restart_count());
}

void wireup_attempt(struct dist_world *w)
{
	const char *job = getenv("SLURM_JOB_ID");

	w->restart_count = restart_count();
	w->run_id[0] = '\0';
	if (job && strlen(job) < sizeof(w->run_id))
		snprintf(w->run_id, sizeof(w->run_id), "%s", job);
}

int wireup_pick_port(const struct wireup_request *req, uint32_t jobid, uint32_t stepid,
                     uint16_t *port, struct dist_err *err)
{
	uint16_t first = wireup_first_port(&req->ports, jobid, stepid);

	return dist_port_pick(&req->ports, first, netlocal_port_free, NULL, port, err);
}

uint32_t wireup_local_gpus(void)
{
	return dist_count_list_items(getenv("CUDA_VISIBLE_DEVICES"));
}

void wireup_find_master_ifname(struct dist_world *w, const struct dist_addr_list *local)
{
	const char *ifname;
	uint32_t master;

	w->master_ifname[0] = '\0';
	if (netlocal_resolve(w->master_addr, &master) != 0)
		return;
	ifname = dist_local_ifname_for(master, local, netlocal_route_src(master));
	if (ifname)
		snprintf(w->master_ifname, sizeof(w->master_ifname), "%s", ifname);
}
