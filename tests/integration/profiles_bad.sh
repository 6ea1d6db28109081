#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad --dist-compat: one clear line, non-zero exit, nothing started, no node drained.
source "$(dirname "$0")/lib.sh"

marker_cmd="touch $WORK/started"
run_srun bogus --dist-mode=ddp --dist-compat=tione,bogus -N1 bash -c "$marker_cmd"
[ "$RC" -ne 0 ] || fail "--dist-compat=tione,bogus exited 0"
assert_contains "$WORK/bogus.err" "invalid --dist-compat 'tione,bogus': valid profiles are modelarts|tione|azureml|kubeflow|mindspore, comma-separated"

run_srun no_mode --dist-compat=tione -N1 bash -c "$marker_cmd"
[ "$RC" -ne 0 ] || fail "--dist-compat without --dist-mode exited 0"
assert_contains "$WORK/no_mode.err" "--dist-compat=tione needs --dist-mode (e.g. --dist-mode=ddp)"

RC=0
timeout 60 sbatch --dist-compat=nope --wrap "$marker_cmd" >"$WORK/sbatch.out" 2>"$WORK/sbatch.err" || RC=$?
[ "$RC" -ne 0 ] || fail "sbatch --dist-compat=nope exited 0"
assert_contains "$WORK/sbatch.err" "invalid --dist-compat 'nope'"

# TI-ONE counts nodes, Azure ML processes: with two tasks per node they disagree.
run_srun conflict --mpi=$XMPI --dist-mode=ddp --dist-compat=tione,azureml -N2 --ntasks-per-node=2 \
	bash -c "$marker_cmd"
[ "$RC" -ne 0 ] || fail "conflicting profiles exited 0"
# Rank 0 sees WORLD_SIZE differ (2 vs 4), the others RANK too.
assert_contains "$WORK/conflict.err" "rank 0: --dist-compat profiles tione and azureml give WORLD_SIZE different meanings (2 vs 4); use one of them"
[ ! -e "$WORK/started" ] || fail "a task started"
assert_no_node_drained
