#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode in the help of srun, sbatch and salloc, as Slurm users look for
# it; and given to salloc it reaches the sruns inside the allocation.
source "$(dirname "$0")/lib.sh"

for cmd in srun sbatch salloc; do
	"$cmd" --help >"$WORK/$cmd.help" 2>&1 || true
	assert_contains "$WORK/$cmd.help" "--dist-mode=MODE        Set up each task for distributed training:"
	assert_contains "$WORK/$cmd.help" "none|ddp|mpi|ps|ascend. none turns it off"
done

RC=0
timeout 120 salloc -N2 --dist-mode=ddp srun env >"$WORK/salloc.out" 2>"$WORK/salloc.err" || RC=$?
[ "$RC" -eq 0 ] || { cat "$WORK/salloc.err" >&2; fail "salloc exited $RC"; }
# Any two of the three nodes (one may still be completing the job before).
assert_count "$WORK/salloc.out" "^$(grep -m1 '^MASTER_ADDR=10\.77\.0\.[1-3]$' "$WORK/salloc.out")\$" 2
assert_count "$WORK/salloc.out" '^RANK=[01]$' 2
assert_count "$WORK/salloc.out" '^NNODES=2$' 2
