/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parameter-server roles: which task is the chief, a ps, a worker or the
 * evaluator, by global rank, deterministically:
 *   rank 0                 chief      (with --dist-chief)
 *   the next N ranks       ps         (--dist-ps=N, default 1)
 *   the last rank          evaluator  (with --dist-evaluator)
 *   every other rank       worker
 * Each role's index counts its tasks in rank order. With srun's cyclic
 * distribution the first ranks land on different nodes, so
 * "srun -N K --ntasks-per-node=2 --distribution=cyclic --dist-ps=K" is
 * ModelArts' layout: one ps and one worker per node. */
#ifndef DIST_ROLES_H
#define DIST_ROLES_H

#include <stdbool.h>
#include <stdint.h>

#include "dist_err.h"

enum dist_role { DIST_ROLE_CHIEF, DIST_ROLE_PS, DIST_ROLE_WORKER, DIST_ROLE_EVALUATOR };

#define DIST_PS_DEFAULT 1

struct dist_roles {
	uint32_t ps;
	bool chief;
	bool evaluator;
};

/* Parses a number of parameter servers given to OPTION ("--dist-ps"). */
int dist_roles_parse_ps(const char *option, const char *text, uint32_t *ps, struct dist_err *err);

/* Refuses layouts that leave no worker. */
int dist_roles_check(const struct dist_roles *roles, uint32_t size, struct dist_err *err);

/* Role and index within it of RANK in a step of SIZE tasks. */
void dist_role_of(const struct dist_roles *roles, uint32_t size, uint32_t rank,
                  enum dist_role *role, uint32_t *index);

/* "chief", "ps", "worker", "evaluator": TF_CONFIG's task types. */
const char *dist_role_name(enum dist_role role);

#endif
