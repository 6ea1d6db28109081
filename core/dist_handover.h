/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef DIST_HANDOVER_H
#define DIST_HANDOVER_H

#include <stddef.h>

/* A value the plugin hands to the shim of one task (the 22.05 route's
 * argv[0] in DIST_SHIM_ARGV0, the step's directory in DIST_SHIM_STEPDIR) is
 * "PID:VALUE", PID being the task's process: the plugin's task_init runs in
 * the very process that then execs the shim, so a value left over in the
 * environment (from another task, step or shell) never names the shim's own
 * pid and is ignored. Encode returns -1 when BUF is too small. */
int dist_handover_encode(long pid, const char *value, char *buf, size_t len);

/* The value inside TEXT when TEXT is "PID:VALUE" with PID equal to PID and a
 * non-empty VALUE; else NULL. */
const char *dist_handover_decode(const char *text, long pid);

#endif
