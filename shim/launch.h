/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding and starting the user's program, with a shell's exit codes. */
#ifndef SHIM_LAUNCH_H
#define SHIM_LAUNCH_H

#include "dist_err.h"
#include "dist_world.h"

#define LAUNCH_NOT_FOUND      127
#define LAUNCH_NOT_EXECUTABLE 126

/* Finds PROGRAM as execvp would (PATH unless it has a '/'); on failure sets
 * ERR and returns 127 (not found) or 126 (not executable). PATH_OUT is
 * malloc'd. */
int launch_resolve(const char *program, char **path_out, struct dist_err *err);

/* Execs; returns only on failure, with 126 or 127 and ERR set. */
int launch_exec(const char *path, char **argv, struct dist_err *err);

/* Which Open MPI the mpirun on PATH belongs to (DIST_OMPI_UNKNOWN when there
 * is none, or it is another MPI's). */
enum dist_ompi launch_probe_ompi(void);

#endif
