#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=ps under srun --mpi=pmi2: the whole of ps_mode.sh with every
# node's ports going through PMI2's fence instead of PMIx's (on 26.05, which
# has no PMIx, ps_mode.sh already runs this way).
XMPI=pmi2
source "$(dirname "$0")/ps_mode.sh"
