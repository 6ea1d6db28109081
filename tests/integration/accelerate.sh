#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Hugging Face Accelerate program across the cluster's nodes, unchanged:
# Accelerator() takes its ranks from the ddp contract (RANK, WORLD_SIZE,
# LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_*), joins over gloo and trains one
# step with equal replicas. Debian ships Accelerate from forky on (Slurm
# 26.05 here); on the releases before, the test checks it is absent.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/accelerate_train.py" "$WORK/"

if ! $PY -c 'import accelerate' 2>/dev/null; then
	slurm_at_least 26.05 && fail "python3-accelerate is missing on Slurm 26.05 (forky ships it)"
	echo "accelerate: not packaged for this release's Debian; nothing to run"
	exit 0
fi
run_srun accel --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$WORK/accelerate_train.py"
[ "$RC" -eq 0 ] || { cat "$WORK/accel.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/accel.out" '^ACCEL-OK ' 6
for r in 0 1 2 3 4 5; do
	assert_count "$WORK/accel.out" "^ACCEL-OK rank=$r world=6 local_rank=$((r % 2)) type=MULTI_CPU " 1
done
assert_count "$WORK/accel.out" ' elastic=True$' 6
# Every node ran its own two.
[ "$(sed -n 's/.* host=\([^ ]*\).*/\1/p' "$WORK/accel.out" | sort -u | wc -l)" -eq 3 ] ||
	fail "the processes did not span the 3 nodes"
