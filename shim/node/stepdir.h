/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The step's private directory on this node, where modes put their files
 * (docs/security.md, "Step directory"). Under the plugin, slurmstepd made
 * it for this step on this node as the user, under a name no one can
 * predict, and removes it when the step ends; it reaches the shim in
 * DIST_SHIM_STEPDIR as "PID:PATH", PID being the task's own (a leftover
 * names another process and is ignored); under a job container the task's
 * /tmp is not slurmstepd's, and the node's first task makes the same name
 * there (the plugin removes it from there too). Started by hand, the shim makes
 * ${TMPDIR:-/tmp}/slurm-dist.UID.jobJ.stepS.HOST.rN itself (per node and
 * per attempt, N being SLURM_RESTART_COUNT), which stays. Either is used
 * only when it is a directory, not a symlink, this user's, mode 0700; each
 * refusal names its cause. */
#ifndef SHIM_STEPDIR_H
#define SHIM_STEPDIR_H

#include <limits.h>
#include <stdint.h>

#include "dist_err.h"

struct stepdir {
	char path[PATH_MAX];
	int fd;
};

int stepdir_open(uint32_t jobid, uint32_t stepid, struct stepdir *dir, struct dist_err *err);

/* Writes NAME atomically (a temporary file, then rename), mode 0600. */
int stepdir_write(const struct stepdir *dir, const char *name, const char *content,
                  struct dist_err *err);

/* Reads NAME whole (malloc'd, NUL-terminated), never through a symlink. */
int stepdir_read(const struct stepdir *dir, const char *name, char **content, struct dist_err *err);

/* Removes NAME if it is there (0), before its writer writes it afresh. */
int stepdir_remove(const struct stepdir *dir, const char *name);

/* Waits until NAME exists, at most TIMEOUT_S seconds; wakes when it
 * appears (inotify), not on a timer. */
int stepdir_wait(const struct stepdir *dir, const char *name, unsigned timeout_s,
                 struct dist_err *err);

#endif
