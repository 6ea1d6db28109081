/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An Open MPI launch line read before it runs (the launcher form's rank 0
 * runs it): a line that asks for more processes than the step's slots
 * would fail in mpirun with a page of text after its daemons started, so it
 * is refused first, with one line naming the numbers. */
#ifndef DIST_LAUNCHLINE_H
#define DIST_LAUNCHLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_err.h"
#include "dist_world.h"

struct dist_launch_line {
	bool ompi_launcher; /* argv[0] is Open MPI's mpirun, mpiexec, orterun or prterun */
	uint32_t np;        /* -np, -n, -c (or --np=N...); 0 when not given */
	bool oversubscribe; /* --oversubscribe, or :OVERSUBSCRIBE in --map-by */
	bool own_hosts;     /* -H, --host, --hostfile, --machinefile: the line's own slots */
};

/* Reads LINE from ARGV's launcher options, up to the program it starts (the
 * first word no option takes). An option it does not know that takes a
 * value ends the reading early: what follows is then not read, never
 * misread as the launcher's. */
void dist_launch_line_read(char *const *argv, struct dist_launch_line *line);

/* The step's slots: each node's GPUs, or its tasks when more (as in the
 * hostfiles and SLURM_TASKS_PER_NODE). */
uint32_t dist_world_slots(const struct dist_world *w);

/* -1 with ERR set when ARGV is an Open MPI launch line (W->ompi known) that
 * asks for more processes than W's slots, without oversubscribing or a
 * host list of its own. */
int dist_launch_line_check(char *const *argv, const struct dist_world *w, struct dist_err *err);

#endif
