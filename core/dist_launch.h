/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MPI launchers and the steps around them: which steps are an MPI
 * launcher's own daemons (left alone), and what a launcher may hand on to
 * the processes it starts (only what is true for all of them). */
#ifndef DIST_LAUNCH_H
#define DIST_LAUNCH_H

#include <stdbool.h>

#include "dist_env.h"
#include "dist_err.h"
#include "dist_handover.h"
#include "dist_mode.h"
#include "dist_profile.h"

/* The name a program is known by: PATH's last component (a bare name is
 * its own). What the readers of launch lines match, whatever the path. */
const char *dist_program_name(const char *path);

/* True when PROGRAM (a step's argv[0], a path or a bare name) is a daemon
 * an MPI launcher starts with srun inside an allocation: Open MPI 4's
 * orted, Open MPI 5/6's prted and prte (PRRTE), MPICH's hydra_pmi_proxy,
 * Intel MPI's pmi_proxy. Such a step carries the launcher's processes, not
 * the user's ranks: it must not get a contract of its own. */
bool dist_is_mpi_daemon(const char *program);

/* True when ARGV starts torch's launcher: torchrun, or a python running
 * -m torch.distributed.run or -m torch.distributed.launch. */
bool dist_is_torch_launcher(char *const *argv);

/* Removes from ENV the variables a mode sets that are true for one task
 * or one node only (ranks, sizes counted in the step's tasks, interface
 * names, per-task device ids, TF_CONFIG): in the launcher form they would
 * reach every process the launcher starts. */
void dist_env_strip_per_task(struct dist_env *env);

/* The contract of MODE with PROFILES on top, for W; in the launcher form
 * (W->launcher) only what holds for every process the launcher starts. */
int dist_contract_env(const struct dist_mode *mode, const struct dist_profile *const *profiles,
                      size_t nprofiles, const struct dist_world *w, struct dist_env *env,
                      struct dist_err *err);

#endif
