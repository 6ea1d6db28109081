#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=ascend on the test cluster: per-node hccn.conf files (in each
# node's private /tmp), a rank table every task validates against its own
# node's file and variables, across nodes; the NPU subset of
# ASCEND_RT_VISIBLE_DEVICES.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/ascend_check.py" "$WORK/"
export DIST_HCCN_CONF=/tmp/dist-test-hccn.conf

write_hccn_confs

run_srun two --mpi=$XMPI --dist-mode=ascend -N3 --ntasks-per-node=2 $PY "$WORK/ascend_check.py"
[ "$RC" -eq 0 ] || { cat "$WORK/two.err" >&2; fail "srun exited $RC"; }
for k in 1 2 3; do
	assert_count "$WORK/two.out" "^ASC-OK rank=[0-5] server=10\.77\.0\.$k device=[01] ip=192\.168\.10[01]\.$k host=tcn$k$" 2
done

ASCEND_RT_VISIBLE_DEVICES=4,5,6,7 run_srun visible --mpi=$XMPI --dist-mode=ascend -w tcn1 -N1 \
	--ntasks-per-node=4 $PY "$WORK/ascend_check.py"
[ "$RC" -eq 0 ] || { cat "$WORK/visible.err" >&2; fail "srun exited $RC"; }
for d in 4 5 6 7; do
	assert_count "$WORK/visible.out" "^ASC-OK rank=[0-3] server=10\.77\.0\.1 device=$d ip=192\.168\.10$d\.1 " 1
done

# Isolated: each task sees only its own NPU, as ModelArts runs one process
# per card; the step-wide list it was chosen from is replaced. The two-node
# step may land on any two of the three (one still completing the step
# before).
ASCEND_CHECK_ISOLATED=1 ASCEND_RT_VISIBLE_DEVICES=4,5,6,7 run_srun isolated --mpi=$XMPI \
	--dist-mode=ascend --dist-npu-isolate -N2 --ntasks-per-node=4 $PY "$WORK/ascend_check.py"
[ "$RC" -eq 0 ] || { cat "$WORK/isolated.err" >&2; fail "srun exited $RC"; }
for d in 4 5 6 7; do
	assert_count "$WORK/isolated.out" "^ASC-OK rank=[0-7] server=10\.77\.0\.[1-3] device=$d " 2
done
