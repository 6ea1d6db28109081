/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shim's side of the topology (bind/topo.h): hwloc itself is reached through
 * its module (bind/topo_hwloc_mod.c), loaded only by a task that needs it. */
#include "bind/topo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/module.h"

#define SHARED_TOPOLOGY "topology.xml"

static int read_view(const char *xml_file, bool this_system, const char *gpus,
                     struct topo_view *view, struct dist_err *err)
{
	const struct topo_module *hwloc = module_hwloc(err);

	return hwloc ? hwloc->read(xml_file, this_system, gpus, view, err) : -1;
}

int topo_read(const char *xml_file, const char *gpus, struct topo_view *view, struct dist_err *err)
{
	return read_view(xml_file, xml_file == NULL, gpus, view, err);
}

int topo_share(const struct stepdir *share, struct dist_err *err)
{
	const struct topo_module *hwloc = module_hwloc(err);
	char *xml = hwloc ? hwloc->export_xml(err) : NULL;
	int rc = xml ? stepdir_write(share, SHARED_TOPOLOGY, xml, err) : -1;

	free(xml);
	return rc;
}

int topo_read_shared(const struct stepdir *share, bool leader, unsigned timeout_s, const char *gpus,
                     struct topo_view *view, struct dist_err *err)
{
	char path[PATH_MAX + 32];
	struct dist_err ignored;

	if (leader)
		return read_view(NULL, true, gpus, view, err);
	if (stepdir_wait(share, SHARED_TOPOLOGY, timeout_s, &ignored) != 0)
		return read_view(NULL, true, gpus, view, err);
	snprintf(path, sizeof(path), "%s/" SHARED_TOPOLOGY, share->path);
	return read_view(path, true, gpus, view, err);
}

int topo_bind(const uint32_t *cpus, size_t n, struct dist_err *err)
{
	const struct topo_module *hwloc = module_hwloc(err);

	return hwloc ? hwloc->bind(cpus, n, err) : -1;
}
