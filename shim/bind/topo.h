/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This node's topology as the binding planner needs it (hwloc): the CPUs
 * the task may use, and for each GPU of the step's list the CPUs near it
 * and the nearest RDMA device. I/O devices are only discovered when the
 * step has GPUs. */
#ifndef SHIM_TOPO_H
#define SHIM_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_bind.h"
#include "dist_err.h"
#include "node/stepdir.h"

struct topo_view {
	uint32_t *allowed;
	size_t nallowed;
	uint32_t ngpus;
	struct dist_locality *localities; /* NULL when the topology does not show the GPUs */
	bool task_bound; /* this process is bound to fewer CPUs than the machine allows */
};

/* XML_FILE: a recorded topology (--explain), or NULL for this machine.
 * GPUS: the step's GPU list (CUDA_VISIBLE_DEVICES), or NULL. */
int topo_read(const char *xml_file, const char *gpus, struct topo_view *view, struct dist_err *err);

/* This machine's topology, discovered once per node: the node's first task
 * (LEADER) discovers it and shares it (topo_share) in SHARE; the others read
 * that (waiting at most TIMEOUT_S, then discovering it themselves). */
int topo_read_shared(const struct stepdir *share, bool leader, unsigned timeout_s, const char *gpus,
                     struct topo_view *view, struct dist_err *err);

/* Writes the topology last read into SHARE, as XML, for the node's tasks
 * that cannot take their line of the node's binding plan. */
int topo_share(const struct stepdir *share, struct dist_err *err);

/* Binds this process to CPUS (of the topology last read for this machine). */
int topo_bind(const uint32_t *cpus, size_t n, struct dist_err *err);

#endif
