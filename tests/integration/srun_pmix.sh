#!/bin/bash
# srun --mpi=pmix: ranks and the master come from PMIx and one fence.
source "$(dirname "$0")/lib.sh"

run_srun train --mpi=pmix --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "srun exited $RC"; }
assert_ddp_ok "$WORK/train.out" 6
