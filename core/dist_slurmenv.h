/* Pure parsers for Slurm's step description variables. */
#ifndef DIST_SLURMENV_H
#define DIST_SLURMENV_H

#include <stddef.h>
#include <stdint.h>

#include "dist_err.h"

/* Expands SLURM_STEP_TASKS_PER_NODE ("2(x3),1") into one count per node. */
int dist_tasks_per_node_parse(const char *text, uint32_t *counts, size_t max, size_t *n,
                              struct dist_err *err);

/* Parses a non-negative decimal that fits in 32 bits. */
int dist_parse_u32(const char *text, uint32_t *value);

#endif
