#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=ascend under srun --mpi=pmi2: the whole of ascend.sh with every
# node's NPUs (its hccn.conf) reaching every task through PMI2's fence.
XMPI=pmi2
source "$(dirname "$0")/ascend.sh"
