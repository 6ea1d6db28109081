/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Puts the shim in front of a task's program. */
#ifndef SPANK_DIST_WRAP_H
#define SPANK_DIST_WRAP_H

#include <slurm/spank.h>

#include "dist_err.h"

int wrap_task(spank_t sp, const char *shim, struct dist_err *err);

#endif
