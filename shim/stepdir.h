/* The step's private directory on this node, where modes put their files:
 * ${TMPDIR:-/tmp}/slurm-dist.UID/jobJ.stepS, each level made 0700 by this
 * user, never reached through a symlink, refused if anyone else owns it or
 * can read it. */
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

/* Waits until NAME exists, at most TIMEOUT_S seconds. */
int stepdir_wait(const struct stepdir *dir, const char *name, unsigned timeout_s,
                 struct dist_err *err);

#endif
