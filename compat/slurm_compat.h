/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The few libslurm API differences between the supported releases (22.05,
 * 24.11, 26.05), in one place, for the shim and the plugin. CMake probes the
 * headers (compat/slurm_probe.cmake). */
#ifndef DIST_SLURM_COMPAT_H
#define DIST_SLURM_COMPAT_H

#include <slurm/slurm.h>

/* Slurm 23.11 made hostlist_t the struct itself (functions take a pointer);
 * before, hostlist_t was already the pointer. */
#ifdef DIST_HOSTLIST_IS_STRUCT
typedef hostlist_t *dist_hostlist;
#else
typedef hostlist_t dist_hostlist;
#endif

/* slurm_load_ctl_conf's result is freed by slurm_free_conf from 26.05 on,
 * slurm_free_ctl_conf before. */
#ifdef DIST_HAVE_SLURM_FREE_CONF
#define dist_free_ctl_conf slurm_free_conf
#else
#define dist_free_ctl_conf slurm_free_ctl_conf
#endif

#endif
