/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dist-shim --doctor: what an admin runs on a node (or on every node through
 * one srun step) to see whether slurm-dist can work there; one line per
 * check, OK, WARN (works, less well) or FAIL with what to fix. */
#ifndef SHIM_DOCTOR_H
#define SHIM_DOCTOR_H

/* PORT_RANGE is checked when no plugstack line gives one (the shim alone).
 * Returns the exit status: 0 when nothing FAILed, 1 otherwise. */
int doctor_run(const char *port_range);

#endif
