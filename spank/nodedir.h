/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The step's private directory on this node (docs/security.md, "Step
 * directory"): made in slurmstepd's user_init, where Slurm runs the plugin
 * with the job's user as effective ids (the real ids stay root), under a name no one can predict or take first
 * (mkdtemp), handed to each task in DIST_SHIM_STEPDIR, and removed when the
 * step ends by a child process that became the job's user first: root
 * never follows a path the user controls. */
#ifndef SPANK_DIST_NODEDIR_H
#define SPANK_DIST_NODEDIR_H

#include <slurm/spank.h>

#include "dist_err.h"

/* user_init: makes the directory under the job's TMPDIR (or /tmp). A
 * failure is kept for nodedir_handover, which fails each task with it. */
void nodedir_make(spank_t sp);

/* task_init: hands the directory to this task ("PID:PATH", PID this
 * process's, which execs the shim next). */
int nodedir_handover(spank_t sp, struct dist_err *err);

/* exit: removes the directory, as the job's user, in a child that keeps
 * none of slurmstepd's descriptors and is killed after a few seconds. */
void nodedir_remove(spank_t sp);

#endif
