/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mount namespace the step's tasks run in, when it is not slurmstepd's:
 * a job container (job_container/tmpfs, namespace/tmpfs) moves only the
 * tasks into the job's namespace, whose /tmp is the job's own. The shim
 * then makes the step's directory there, and slurmstepd must enter that
 * namespace to remove it at the step's end, when no task is left to show
 * the way. So each task hands its namespace over before it execs the shim:
 * a descriptor of /proc/self/ns/mnt sent over a socket slurmstepd made
 * before forking the tasks; what is queued there holds the namespace until
 * slurmstepd reads it at the step's end (docs/security.md, "Step
 * directory"). Needs neither Slurm nor root: unit-tested alone. */
#ifndef SPANK_DIST_TASKNS_H
#define SPANK_DIST_TASKNS_H

#include <stddef.h>

/* At most this many namespaces are kept for the step's end (more would
 * mean a task per namespace, which no job container does). */
#define TASKNS_MAX 8

/* slurmstepd, before the tasks are forked: notes its own namespace and
 * makes the socket (close-on-exec: only the tasks' forks, before their
 * exec, hold it). 0, or -1 when the socket cannot be made. */
int taskns_prepare(void);

/* A task, as the user, before exec: sends its namespace when it is not
 * slurmstepd's; never blocks. 1 sent, 0 nothing to send, -1 failed. */
int taskns_report(void);

/* slurmstepd at the step's end: the distinct namespaces the tasks sent
 * (descriptors for the caller to close), at most MAX; closes the socket. */
size_t taskns_collect(int *fds, size_t max);

#endif
