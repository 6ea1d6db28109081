/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node's binding plan, made once: the node's first task reads the
 * topology (hwloc) and the NICs (ibverbs), plans every task of the node and
 * writes one line per task in the step directory; each other task of the
 * node reads its line and binds itself, without a topology of its own. A
 * task that sees other GPUs or other CPUs than the first one did (Slurm
 * bound or isolated each task) does not use the plan: its own differs. */
#ifndef SHIM_BIND_PLAN_H
#define SHIM_BIND_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist_bind.h"
#include "dist_err.h"
#include "node/stepdir.h"

/* What ibverbs says of a plan's NIC (the first task asks for all). */
struct bind_nic {
	bool active; /* its port is up (or ibverbs cannot tell) */
	int gid;     /* RoCE GID index, -1 for none */
};

/* The first task: writes the plan of the node's LOCAL_SIZE tasks for
 * tasks that see GPUS (may be NULL) and the CPUs this one may use. */
int bind_plan_share(const struct stepdir *dir, const struct dist_bind_input *in, const char *gpus,
                    struct dist_err *err);

/* Another task: its plan and NIC state from the shared plan. Returns 1 when
 * there is none for it (none within TIMEOUT_S, or made for other GPUs or
 * CPUs): then it plans for itself. */
int bind_plan_take(const struct stepdir *dir, uint32_t local_rank, const char *gpus,
                   unsigned timeout_s, struct dist_bind_plan *plan, struct bind_nic *nic,
                   struct dist_err *err);

/* The plan file's TEXT (changed) read for LOCAL_RANK, a task that sees
 * GPUS (may be NULL) and may use CPUS (a CPU list): 0 with its PLAN (cpus
 * malloc'd) and NIC; 1 when the plan has no line for it or was made for
 * other GPUs or CPUs; -1 with ERR set when its line is malformed. */
int bind_plan_parse(char *text, uint32_t local_rank, const char *gpus, const char *cpus,
                    struct dist_bind_plan *plan, struct bind_nic *nic, struct dist_err *err);

/* Binds this thread (the one that execs the program) to CPUS. */
int bind_plan_apply_cpus(const uint32_t *cpus, size_t n, struct dist_err *err);

/* The NIC state of PLAN, asked of ibverbs. */
struct bind_nic bind_nic_inspect(const struct dist_bind_plan *plan);

#endif
