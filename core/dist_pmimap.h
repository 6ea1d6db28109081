/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PMI_process_mapping: the job attribute through which PMI2 (Slurm's
 * mpi/pmi2, MPICH's Hydra) tells which node each rank runs on. */
#ifndef DIST_PMIMAP_H
#define DIST_PMIMAP_H

#include <stddef.h>
#include <stdint.h>

#include "dist_buf.h"
#include "dist_err.h"

/* Parses "(vector,(S,N,P),...)": each block gives each of the nodes S to
 * S+N-1 P consecutive ranks, blocks in order, and the list starts again
 * from its first block while ranks remain (MPICH's reading; Slurm writes
 * every rank out). Fills NODE_OF with the node of each of SIZE ranks and
 * NNODES with the number of nodes, every one of which must hold a rank. */
int dist_pmi_mapping_parse(const char *text, uint32_t size, uint32_t *node_of, uint32_t *nnodes,
                           struct dist_err *err);

/* Writes NODE_OF (SIZE ranks) in that form into OUT (emptied first), runs of nodes with as many
 * consecutive ranks each merged into one block. */
int dist_pmi_mapping_format(const uint32_t *node_of, uint32_t size, struct dist_buf *out,
                            struct dist_err *err);

#endif
