/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This node's topology through hwloc (bind/topo.h), a module of its own
 * (base/module.h): only a node's first task, or a task that plans for itself,
 * loads it. */
#include <hwloc.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/module.h"
#include "bind/topo.h"
#include "dist_slurmenv.h"

static hwloc_topology_t topology;

/* Names under which hwloc shows a CUDA device with index N. */
static bool is_gpu_named(const char *name, uint32_t index)
{
	char cuda[32], nvml[32];

	snprintf(cuda, sizeof(cuda), "cuda%u", index);
	snprintf(nvml, sizeof(nvml), "nvml%u", index);
	return strcmp(name, cuda) == 0 || strcmp(name, nvml) == 0;
}

static bool is_rdma_device(const char *name)
{
	static const char *const prefixes[] = {"mlx",   "hfi", "qib", "bnxt_re",
	                                       "irdma", "efa", "hns"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

static hwloc_obj_t find_osdev(bool (*match)(const char *, uint32_t), uint32_t index)
{
	hwloc_obj_t o = NULL;

	while ((o = hwloc_get_next_osdev(topology, o)))
		if (o->name && match(o->name, index))
			return o;
	return NULL;
}

/* The RDMA device whose CPU-side ancestor is GPU_ANCESTOR's, or "". */
static void nearest_nic(hwloc_obj_t gpu_ancestor, char *nic)
{
	hwloc_obj_t o = NULL;

	nic[0] = '\0';
	while ((o = hwloc_get_next_osdev(topology, o)))
		if (o->name && is_rdma_device(o->name) &&
		    hwloc_get_non_io_ancestor_obj(topology, o) == gpu_ancestor) {
			snprintf(nic, DIST_NIC_MAX, "%s", o->name);
			return;
		}
}

/* SET's CPUs in the topology's order, a core's hardware threads together,
 * so that contiguous shares are whole cores. */
static int cpus_of(hwloc_const_bitmap_t set, uint32_t **cpus, size_t *n)
{
	int weight = hwloc_bitmap_weight(set);
	hwloc_obj_t pu = NULL;
	size_t k = 0;

	*cpus = calloc(weight > 0 ? (size_t)weight : 1, sizeof(**cpus));
	if (!*cpus)
		return -1;
	while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topology, set, HWLOC_OBJ_PU, pu)) &&
	       k < (size_t)weight)
		(*cpus)[k++] = pu->os_index;
	*n = k;
	return 0;
}

/* hwloc loads every plugin it has at its first init: OpenCL and GL (GPU
 * names the planner does not use), libxml2 (with ICU and libstdc++: hwloc's
 * own parser reads the XML hwloc writes), and the PCI scan, which only a
 * step with GPUs needs. Half the cost of a node's first task's binding
 * here; a user's own HWLOC_PLUGINS_BLACKLIST is left as it is. */
static int init_topology(bool with_io)
{
	const char *skip = with_io ? "hwloc_opencl,hwloc_gl,hwloc_xml_libxml"
	                           : "hwloc_opencl,hwloc_gl,hwloc_xml_libxml,hwloc_pci";
	bool ours = !getenv("HWLOC_PLUGINS_BLACKLIST") &&
	            setenv("HWLOC_PLUGINS_BLACKLIST", skip, 0) == 0;
	int rc = hwloc_topology_init(&topology);

	if (ours)
		unsetenv("HWLOC_PLUGINS_BLACKLIST"); /* not the program's */
	return rc;
}

static int load(const char *xml_file, bool this_system, bool with_io, struct dist_err *err)
{
	if (topology)
		hwloc_topology_destroy(topology);
	if (init_topology(with_io) != 0)
		return dist_err_set(err, "hwloc cannot start");
	if (with_io)
		hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* A topology another task of this node shared: still this machine,
	 * so binding works. */
	if (xml_file && this_system)
		hwloc_topology_set_flags(topology, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM);
	if (xml_file && hwloc_topology_set_xml(topology, xml_file) != 0)
		return dist_err_set(err, "hwloc cannot read the topology %s", xml_file);
	if (hwloc_topology_load(topology) != 0)
		return dist_err_set(err, "hwloc cannot load the topology%s%s", xml_file ? " " : "",
		                    xml_file ? xml_file : "");
	return 0;
}

static int read_allowed(bool this_system, struct topo_view *view, struct dist_err *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc = -1;

	if (!set)
		return dist_err_set(err, "out of memory");
	hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(topology));
	/* This machine: what this process may use, as Slurm left it. */
	if (this_system) {
		hwloc_bitmap_t bound = hwloc_bitmap_alloc();

		if (bound && hwloc_get_cpubind(topology, bound, HWLOC_CPUBIND_PROCESS) == 0) {
			hwloc_bitmap_and(set, set, bound);
			view->task_bound = !hwloc_bitmap_isequal(
			        set, hwloc_topology_get_allowed_cpuset(topology));
		}
		hwloc_bitmap_free(bound);
	}
	if (cpus_of(set, &view->allowed, &view->nallowed) == 0)
		rc = 0;
	else
		dist_err_set(err, "out of memory");
	hwloc_bitmap_free(set);
	return rc;
}

/* Each listed GPU's nearby CPUs and NIC; leaves localities NULL if any GPU
 * is missing from the topology (or the list holds UUIDs, not indexes). */
static void read_localities(const char *gpus, struct topo_view *view)
{
	struct dist_locality *loc = calloc(view->ngpus, sizeof(*loc));
	uint32_t *indexes = calloc(view->ngpus ? view->ngpus : 1, sizeof(*indexes));

	if (!loc || !indexes || dist_gpu_indexes_parse(gpus, indexes, view->ngpus)) {
		free(loc);
		free(indexes);
		return;
	}
	for (uint32_t i = 0; i < view->ngpus; i++) {
		hwloc_obj_t gpu, ancestor;
		uint32_t *cpus;

		if (!(gpu = find_osdev(is_gpu_named, indexes[i]))) {
			for (uint32_t j = 0; j < i; j++)
				free((void *)loc[j].cpus);
			free(loc);
			free(indexes);
			return;
		}
		ancestor = hwloc_get_non_io_ancestor_obj(topology, gpu);
		if (cpus_of(ancestor->cpuset, &cpus, &loc[i].ncpus))
			cpus = NULL;
		loc[i].cpus = cpus;
		nearest_nic(ancestor, loc[i].nic);
	}
	free(indexes);
	view->localities = loc;
}

static int read_view(const char *xml_file, bool this_system, const char *gpus,
                     struct topo_view *view, struct dist_err *err)
{
	memset(view, 0, sizeof(*view));
	view->ngpus = dist_count_list_items(gpus);
	if (load(xml_file, this_system, view->ngpus > 0, err) ||
	    read_allowed(this_system, view, err))
		return -1;
	if (view->ngpus > 0)
		read_localities(gpus, view);
	return 0;
}

static char *export_xml(struct dist_err *err)
{
	char *xml = NULL, *copy;
	int len;

	if (!topology || hwloc_topology_export_xmlbuffer(topology, &xml, &len, 0) != 0) {
		dist_err_set(err, "hwloc cannot export the topology");
		return NULL;
	}
	copy = strdup(xml);
	hwloc_free_xmlbuffer(topology, xml);
	if (!copy)
		dist_err_set(err, "out of memory");
	return copy;
}

static int bind_cpus(const uint32_t *cpus, size_t n, struct dist_err *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int rc;

	if (!set || !topology)
		return dist_err_set(err, "no topology to bind with");
	for (size_t i = 0; i < n; i++)
		hwloc_bitmap_set(set, cpus[i]);
	rc = hwloc_set_cpubind(topology, set, HWLOC_CPUBIND_PROCESS);
	hwloc_bitmap_free(set);
	return rc == 0 ? 0 : dist_err_set(err, "cannot bind to the chosen CPUs");
}

MODULE_EXPORT const struct topo_module dist_shim_module_hwloc = {MODULE_ABI, read_view, export_xml,
                                                                 bind_cpus};
