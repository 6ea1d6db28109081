/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A child of slurmstepd (root) that does one job and ends: it keeps none
 * of slurmstepd's descriptors, and slurmstepd waits for it a bounded time
 * only (a hung file system must not keep the step completing). No Slurm
 * here: unit-tested (tests/unit/test_spank_child.c). */
#ifndef SPANK_DIST_CHILD_H
#define SPANK_DIST_CHILD_H

#include <sys/types.h>

/* In the child: closes every descriptor from LOWFD up (close_range where
 * the kernel has it, else one by one up to the descriptor limit). */
void child_close_from(int lowfd);

/* Waits for child PID up to TIMEOUT_MS. Returns 0 with *STATUS its wait
 * status when it ended in time; 1 when it did not, after SIGKILL and a
 * bounded wait for it to go (a process stuck in a hung file system may not
 * go at once: then it is left to init when slurmstepd ends); -1 with errno
 * when it cannot be waited for (*STATUS is then not set). */
int child_wait(pid_t pid, unsigned timeout_ms, int *status);

#endif
