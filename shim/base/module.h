/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shim's parts that need a large library (PMIx, Slurm's PMI2, libslurm,
 * hwloc, libibverbs, OpenSSL's libcrypto) are shared objects of their own,
 * loaded on the path that uses them and only there: every exec of the shim
 * otherwise maps and relocates all of them, which costs a task more than
 * the shim's own work (docs/performance.md). Each module exports one
 * table, dist_shim_module_NAME, that starts with MODULE_ABI: a module from
 * another build is refused, not called. */
#ifndef SHIM_MODULE_H
#define SHIM_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_relay.h"

/* Bumped whenever a table below changes. */
#define MODULE_ABI "slurm-dist " DIST_VERSION " module ABI 3"

#define MODULE_EXPORT __attribute__((visibility("default")))

struct wireup_transport;

struct transport_module {
	const char *abi;
	const struct wireup_transport *transport;
};

struct slurmctld_module {
	const char *abi;
	/* Slurm's node index of each of step JOB.STEP's SIZE ranks on NNODES
	 * nodes (NODE_OF: SIZE entries), from slurmctld. */
	int (*step_layout)(uint32_t job, uint32_t step, uint32_t size, uint32_t nnodes,
	                   uint32_t *node_of, struct dist_err *err);
	/* The names and NodeAddrs of NODELIST's nodes in its order (*COUNT of
	 * each, malloc'd strings in malloc'd arrays), from one query; with
	 * ONLY < *COUNT only that node's (a query about it alone), the others
	 * NULL. */
	int (*node_addrs)(const char *nodelist, uint32_t only, char ***names, char ***addrs,
	                  uint32_t *count, struct dist_err *err);
	/* NODELIST's names in its order (libslurm's hostlist; no query). */
	int (*node_names)(const char *nodelist, char ***names, uint32_t *count,
	                  struct dist_err *err);
};

struct topo_view;

struct topo_module {
	const char *abi;
	/* XML_FILE: a recorded or shared topology, or NULL: this machine's.
	 * THIS_SYSTEM: it describes this machine (binding works). */
	int (*read)(const char *xml_file, bool this_system, const char *gpus,
	            struct topo_view *view, struct dist_err *err);
	/* The topology last read, as XML (malloc'd). */
	char *(*export_xml)(struct dist_err *err);
	int (*bind)(const uint32_t *cpus, size_t n, struct dist_err *err);
};

struct rdma_module {
	const char *abi;
	int (*inspect)(const char *nic, bool *active, int *gid_index, struct dist_err *err);
};

struct relay_mac_module {
	const char *abi;
	/* dist_relay.h's, which the shim itself no longer links; mac: 0, or -1
	 * when OpenSSL cannot compute it. */
	int (*mac)(const uint8_t key[DIST_RELAY_KEY_LEN], enum dist_relay_label label,
	           const uint8_t n0[DIST_RELAY_NONCE_LEN], const uint8_t np[DIST_RELAY_NONCE_LEN],
	           uint32_t rank, uint8_t status, uint8_t mac[DIST_RELAY_MAC_LEN]);
	bool (*equal)(const uint8_t a[DIST_RELAY_MAC_LEN], const uint8_t b[DIST_RELAY_MAC_LEN]);
};

struct doctor_module {
	const char *abi;
	int (*run)(const char *port_range); /* doctor.h's doctor_run */
};

/* Every module, once: X(ID, NAME, TABLE, GLOBAL) for the module
 * dist-shim-NAME.so, whose table dist_shim_module_NAME is a struct TABLE.
 * GLOBAL: its libraries go in the global scope (RTLD_GLOBAL), where
 * libslurm's own plugins (auth_munge.so, hash_k12.so...), which do not link
 * libslurm, find its symbols as they do in a program linked to it. */
#define MODULES(X)                                                                                 \
	X(PMIX, pmix, transport_module, false)     /* wireup/pmix_mod.c: the exchange over PMIx */ \
	X(PMI2, pmi2, transport_module, false)     /* wireup/pmi2_mod.c: over Slurm's PMI2 */      \
	X(SLURM, slurm, slurmctld_module, true)    /* wireup/slurmctld_mod.c: layout, NodeAddrs */ \
	X(HWLOC, hwloc, topo_module, false)        /* bind/topo_hwloc_mod.c: topology, binding */  \
	X(VERBS, verbs, rdma_module, false)        /* bind/rdma_verbs_mod.c: NIC port, RoCE GID */ \
	X(CRYPTO, crypto, relay_mac_module, false) /* relay/relay_mac_mod.c: the relay's MACs */   \
	X(DOCTOR, doctor, doctor_module, true)     /* doctor/doctor_mod.c: --doctor */

#define MODULE_ENUM(id, name, table, global) MODULE_##id,
enum module_id { MODULES(MODULE_ENUM) MODULE_COUNT };
#undef MODULE_ENUM

/* module_NAME(): module NAME's table, loaded on first use; NULL with ERR
 * set (naming the file and what the loader said) when it cannot be. */
#define MODULE_ACCESSOR(id, name, table, global)                                                   \
	const struct table *module_##name(struct dist_err *err);
MODULES(MODULE_ACCESSOR)
#undef MODULE_ACCESSOR

/* Each module's table as its *_mod.c defines it: declared here, so that a
 * table of another type than the list's does not compile. */
#define MODULE_TABLE(id, name, table, global)                                                      \
	extern MODULE_EXPORT const struct table dist_shim_module_##name;
MODULES(MODULE_TABLE)
#undef MODULE_TABLE

/* Whether module ID loads (the doctor tries them all); ERR as above. */
int module_load(enum module_id id, struct dist_err *err);

/* The file name of module ID ("dist-shim-pmix.so"). */
const char *module_file(enum module_id id);

#endif
