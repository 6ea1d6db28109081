/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The step's private directory on this node (docs/security.md, "Step
 * directory"): made in slurmstepd's user_init, where Slurm runs the plugin
 * with the job's user as effective ids (the real ids stay root), under a name no one can predict or
 * take first (mkdtemp), handed to each task in DIST_SHIM_STEPDIR, and removed when the step ends by
 * a child process that became the job's user first: root never follows a path the user controls.
 * Under a job container the tasks see another /tmp: the shim makes the same name there, and the
 * removal also happens in the tasks' namespace. */
#ifndef SPANK_DIST_NODEDIR_H
#define SPANK_DIST_NODEDIR_H

#include <slurm/spank.h>

#include "dist_err.h"

/* init_post_opt, in slurmstepd before the tasks are forked: readies the
 * hand-over of the tasks' mount namespace (taskns.h). */
void nodedir_prepare(void);

/* user_init: makes the directory under the job's TMPDIR (or /tmp). A
 * failure is kept for nodedir_handover, which fails each task with it. */
void nodedir_make(spank_t sp);

/* task_init: hands the directory to this task ("PID:PATH", PID this
 * process's, which execs the shim next), and this task's mount namespace to
 * slurmstepd when it is another one (a job container): the shim then makes
 * the directory under the same name in the task's own TMPDIR. */
int nodedir_handover(spank_t sp, struct dist_err *err);

/* exit: removes the directory, as the job's user, in a child that keeps
 * none of slurmstepd's descriptors and is killed after a few seconds; then
 * the same in each mount namespace the tasks handed over, from a child that
 * enters it (as root) before it drops to the user. */
void nodedir_remove(spank_t sp);

#endif
