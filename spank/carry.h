/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shim carried into a container that another plugin makes the task
 * enter (pyxis, and any plugin that joins a container in task_init):
 * core/dist_carry.h says how; docs/containers.md when. */
#ifndef SPANK_DIST_CARRY_H
#define SPANK_DIST_CARRY_H

#include <slurm/spank.h>
#include <stdbool.h>

#include "dist_err.h"

/* task_init_privileged, in the task's process while it still sees the
 * node's files: opens the shim's directory, its loader, dist-shim-enter
 * and the shim's library directories. A failure leaves nothing open and is
 * told only when the shim must be carried (carry_wrap_path). */
void carry_open(spank_t sp, const char *shim);

/* task_init: whether SHIM is no longer this task's shim at its path (a
 * plugin before this one moved the task into a container), or ALWAYS. */
bool carry_needed(const char *shim, bool always);

/* Hands the descriptors to the task (DIST_SHIM_CARRIED), with the names
 * the task's environment had in task_init_privileged (before any plugin
 * imported its own: DIST_SHIM_USER_NAMES), and gives the path
 * the task must exec instead of the shim: "/proc/self/fd/N" of
 * dist-shim-enter. NULL with ERR set when the shim could not be opened. */
const char *carry_wrap_path(spank_t sp, struct dist_err *err);

/* The descriptors are not needed: closes them. */
void carry_close(void);

#endif
