/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mpi: MPI, Horovod and DeepSpeed jobs as ModelArts, TI-ONE and Kubeflow's
 * MPIJob run them. Every task is an MPI rank (srun --mpi=pmix wires them
 * up); the hostfiles and variables serve launchers (mpirun, horovodrun,
 * deepspeed) and scripts that read them. The ddp contract comes too, since
 * Horovod and DeepSpeed programs often also read MASTER_ADDR and RANK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist_buf.h"
#include "dist_mode.h"
#include "dist_net.h"
#include "dist_profile.h"
#include "dist_slurmenv.h"

#define HOSTFILE_OPENMPI "hostfile"
#define HOSTFILE_MPICH   "hostfile.mpich"
#define HOSTS_ONLY       "hosts"

/* One line per node, "host slots=N" (Open MPI, DeepSpeed) or "host:N"
 * (MPICH, Intel MPI); N as dist_node_slots; with no SEPARATOR the host
 * alone (pdsh's -w ^FILE and WCOLL, which take a whole line for a host).
 * The host is Slurm's name of the node in a Slurm step: launchers inside
 * the allocation (mpirun, mpiexec) accept only those; else its address.
 * NULL when out of memory. */
static char *format_hostfile(const struct dist_world *w, const char *separator)
{
	struct dist_buf text = DIST_BUF_INIT;

	for (uint32_t i = 0; i < w->nnodes; i++) {
		dist_buf_append(&text, w->node_names ? w->node_names[i] : w->nodes[i].addr);
		if (separator)
			dist_buf_appendf(&text, "%s%u", separator, dist_node_slots(&w->nodes[i]));
		dist_buf_append(&text, "\n");
	}
	return dist_buf_take(&text);
}

static int mpi_build_files(const struct dist_world *w, struct dist_files *files,
                           struct dist_err *err)
{
	if (!w->nodes)
		return dist_err_set(err, "the node table was not gathered for mode mpi");
	if (dist_files_add(files, HOSTFILE_OPENMPI, format_hostfile(w, " slots="), err) ||
	    dist_files_add(files, HOSTFILE_MPICH, format_hostfile(w, ":"), err) ||
	    dist_files_add(files, HOSTS_ONLY, format_hostfile(w, NULL), err))
		return -1;
	return 0;
}

/* Variables the platforms' MPI jobs read, rendered as the profiles do. */
static int set_platform_vars(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	static const struct {
		const char *name;
		enum dist_source source;
	} vars[] = {
	        {"NODE_IP_SLOT_LIST", SRC_NODE_SLOT_LIST}, /* TI-ONE */
	        {"GPU_NUM", SRC_GPUS_TOTAL},
	        {"GPU_NUM_PER_NODE", SRC_GPUS_PER_NODE},
	        {"VC_WORKER_HOSTS", SRC_HOST_LIST}, /* ModelArts */
	        {"MA_NUM_HOSTS", SRC_NNODES},
	};
	struct dist_buf value = DIST_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]) && rc == 0; i++)
		if (dist_source_render(vars[i].source, w, &value, err) ||
		    dist_env_set(env, vars[i].name, dist_buf_str(&value), err))
			rc = -1;
	dist_buf_free(&value);
	return rc;
}

static int set_hostfile_vars(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	/* Open MPI 4 (ORTE), Open MPI 5 and 6 (PRRTE), MPICH's Hydra, Intel MPI. */
	if (dist_env_setf(env, err, "OMPI_MCA_orte_default_hostfile", "%s/" HOSTFILE_OPENMPI,
	                  w->step_dir) ||
	    dist_env_setf(env, err, "PRTE_MCA_prte_default_hostfile", "%s/" HOSTFILE_OPENMPI,
	                  w->step_dir) ||
	    dist_env_setf(env, err, "HYDRA_HOST_FILE", "%s/" HOSTFILE_MPICH, w->step_dir) ||
	    dist_env_setf(env, err, "I_MPI_HYDRA_HOST_FILE", "%s/" HOSTFILE_MPICH, w->step_dir))
		return -1;
	/* pdsh (DeepSpeed's multi-node runner) reads WCOLL when given no -w,
	 * and connects with rsh unless told otherwise. */
	if (dist_env_setf(env, err, "WCOLL", "%s/" HOSTS_ONLY, w->step_dir) ||
	    dist_env_set(env, "PDSH_RCMD_TYPE", "ssh", err))
		return -1;
	return 0;
}

/* Each Open MPI reads its own names (checked with 4.1, 5.0 and 6.0):
 * - the MPI library's TCP transport, btl_tcp_if_include, in all of them;
 * - the launcher's daemons: Open MPI 4 (ORTE) reads oob_tcp_if_include;
 *   5 and 6 (PRRTE) ignore it in mpirun, and 6 prints a deprecation box on
 *   every rank for it (PMIx maps it to ptl_tcp_if_include); both read
 *   PRTE_MCA_prte_if_include, which 4 ignores.
 * Unknown (no mpirun on the PATH): both, as an Open MPI 4 mpirun reached
 * some other way still needs its own. The hostfile names are set for every
 * version (set_hostfile_vars): each ignores the other's silently. */
static int set_ompi_network_vars(enum dist_ompi ompi, const char *net, struct dist_env *env,
                                 struct dist_err *err)
{
	if (dist_env_set(env, "OMPI_MCA_btl_tcp_if_include", net, err))
		return -1;
	if (ompi != DIST_OMPI_PRRTE && dist_env_set(env, "OMPI_MCA_oob_tcp_if_include", net, err))
		return -1;
	if (ompi != DIST_OMPI_ORTE && dist_env_set(env, "PRTE_MCA_prte_if_include", net, err))
		return -1;
	return 0;
}

/* Open MPI's TCP transports (and its launcher's daemons) use the interface
 * on this node's own address's subnet, given as CIDR so that the value does
 * not depend on what each node calls its interface; the interface's name
 * when the subnet is unknown. */
static int set_ompi_tcp_networks(const struct dist_world *w, struct dist_env *env,
                                 struct dist_err *err)
{
	const struct dist_node *me = &w->nodes[w->node_rank];
	char net[DIST_ADDR_MAX + 4], base[DIST_ADDR_MAX];
	uint32_t addr, mask;

	if (me->prefix > 0 && me->prefix <= 32 && dist_ipv4_parse(me->addr, &addr) == 0) {
		mask = me->prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> me->prefix);
		dist_ipv4_format(addr & mask, base);
		snprintf(net, sizeof(net), "%s/%u", base, me->prefix);
	} else if (w->master_ifname[0]) {
		snprintf(net, sizeof(net), "%s", w->master_ifname);
	} else {
		return 0;
	}
	return set_ompi_network_vars(w->ompi, net, env, err);
}

/* The launcher form: Open MPI's mpirun inside an allocation takes its nodes
 * and slots from Slurm (SLURM_NODELIST, SLURM_TASKS_PER_NODE), and those
 * slots are the step's one task per node, so `mpirun -np $GPU_NUM` found
 * too few. Given the hostfiles' slots instead, in Slurm's order, which the
 * step's need not follow (docs/mpi.md, "Slots inside Slurm"). */
static int set_launcher_slots(const struct dist_world *w, struct dist_env *env,
                              struct dist_err *err)
{
	struct dist_buf text = DIST_BUF_INIT;
	uint32_t *slots;
	int rc = -1;

	if (!w->launcher)
		return 0;
	slots = calloc(w->nnodes ? w->nnodes : 1, sizeof(*slots));
	if (!slots)
		return dist_err_set(err, "out of memory");
	for (uint32_t i = 0; i < w->nnodes; i++) {
		uint32_t at = w->nodes[i].slurm_index;

		if (at >= w->nnodes || slots[at]) {
			dist_err_set(err,
			             "the step's nodes do not each have one place in Slurm's list");
			goto out;
		}
		slots[at] = dist_node_slots(&w->nodes[i]);
	}
	dist_tasks_per_node_format(slots, w->nnodes, &text);
	/* Over Slurm's own value, which the task always has. */
	rc = dist_env_replace(env, "SLURM_TASKS_PER_NODE", dist_buf_str(&text), err);
out:
	dist_buf_free(&text);
	free(slots);
	return rc;
}

/* MPICH's Hydra in the launcher form: mpiexec's proxies, started on the
 * other nodes through srun, connect back to it by its host name, which need
 * not resolve there; given the interface that reaches the step's peers,
 * mpiexec hands them that interface's address instead. Only rank 0's task
 * runs mpiexec, and its interface is the one meant; the proxies do not
 * need an interface of that name on their own nodes (docs/mpi.md). */
static int set_hydra_iface(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (!w->launcher || !w->master_ifname[0])
		return 0;
	return dist_env_set(env, "HYDRA_IFACE", w->master_ifname, err);
}

/* Open MPI 5 and later find their peers under srun only through PMIx: in a
 * step without it each rank would quietly run alone, a singleton of size 1.
 * Refused on every task alike, so no rank starts. */
static int check_ranks_can_meet(const struct dist_world *w, struct dist_err *err)
{
	if (w->launcher || w->size < 2 || w->step_has_pmix || w->ompi != DIST_OMPI_PRRTE)
		return 0;
	return dist_err_set(err,
	                    "this step has no PMIx, which Open MPI 5 and later (the mpirun on "
	                    "PATH) need to start ranks under srun: each of the %u ranks would "
	                    "run alone; launch with --mpi=pmix, or where Slurm has no PMIx "
	                    "plugin run mpirun in one task per node with --dist-launcher",
	                    w->size);
}

static int mpi_build_env(const struct dist_world *w, struct dist_env *env, struct dist_err *err)
{
	if (!w->nodes || !w->step_dir)
		return dist_err_set(err, "the node table was not gathered for mode mpi");
	if (check_ranks_can_meet(w, err))
		return -1;
	if (dist_mode_ddp.build_env(w, env, err) || set_hostfile_vars(w, env, err) ||
	    set_platform_vars(w, env, err) || set_ompi_tcp_networks(w, env, err) ||
	    set_launcher_slots(w, env, err) || set_hydra_iface(w, env, err))
		return -1;
	if (w->master_ifname[0] && dist_env_set(env, "HOROVOD_GLOO_IFACE", w->master_ifname, err))
		return -1;
	return 0;
}

const struct dist_mode dist_mode_mpi = {
        .name = "mpi",
        .summary = "MPI/Horovod/DeepSpeed: hostfiles, NODE_IP_SLOT_LIST, interface variables",
        .needs_nodes = true,
        .program_uses_pmi = true,
        .names_nodes = true,
        .build_env = mpi_build_env,
        .build_files = mpi_build_files,
};
