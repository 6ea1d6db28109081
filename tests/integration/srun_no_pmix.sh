#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without --mpi=pmix (MpiDefault=none): Slurm's variables, libslurm's
# hostlist and rank 0's NodeAddr.
source "$(dirname "$0")/lib.sh"

run_srun train --dist-mode=ddp -N3 -n5 $PY "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "srun exited $RC"; }
assert_ddp_ok "$WORK/train.out" 5
