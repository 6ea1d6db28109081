#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without PMI the tasks need the step's node order and addresses, which only
# slurmctld knows: srun's plugin asks once per step and hands the answer to
# every task (SLURM_DIST_STEP_NODES), so slurmctld sees no query per task
# (sdiag's counters). The shim started by hand, without the plugin, still
# asks for itself: one layout query per task, which shows what is saved.
source "$(dirname "$0")/lib.sh"

# count TYPE: how many RPCs of TYPE slurmctld has answered so far (sdiag
# lists a type once it has seen one).
count() {
	local out
	out=$(sdiag) || fail "sdiag failed"
	grep -q 'Remote Procedure Call statistics by message type' <<<"$out" ||
		fail "sdiag shows no RPC statistics: $out"
	awk -v t="$1" '$1 == t { for (i = 2; i <= NF; i++) if ($i ~ /^count:/) { sub(/^count:/, "", $i); n = $i } }
		END { print n + 0 }' <<<"$out"
}
snapshot() {
	LAYOUT=$(count REQUEST_STEP_LAYOUT)
	SINGLE=$(count REQUEST_NODE_INFO_SINGLE)
	FULL=$(count REQUEST_NODE_INFO)
}
# since NAME MAX_LAYOUT MAX_SINGLE MAX_FULL: the queries since the snapshot.
since() {
	local l s f
	l=$(($(count REQUEST_STEP_LAYOUT) - LAYOUT))
	s=$(($(count REQUEST_NODE_INFO_SINGLE) - SINGLE))
	f=$(($(count REQUEST_NODE_INFO) - FULL))
	echo "ctld_rpcs: $1: step layout $l, one node $s, every node $f"
	[ "$l" -le "$2" ] && [ "$s" -le "$3" ] && [ "$f" -le "$4" ] ||
		fail "$1: slurmctld answered $l layout, $s single-node and $f node-table queries (expected at most $2, $3, $4)"
}

show='echo "$SLURM_PROCID $MASTER_ADDR:$MASTER_PORT ${AZ_BATCH_HOST_LIST:-}"'

# 12 tasks, mode ddp: the master's address only.
snapshot
run_srun ddp --mpi=none --dist-mode=ddp -N3 --ntasks-per-node=4 bash -c "$show"
[ "$RC" -eq 0 ] || { cat "$WORK/ddp.err" >&2; fail "srun exited $RC"; }
since "ddp, 3x4 tasks" 1 1 0
assert_count "$WORK/ddp.out" '^[0-9]* 10\.77\.0\.1:24[0-9]* $' 12

# A profile that lists every node: one node-table query, for the whole step.
snapshot
run_srun az --mpi=none --dist-mode=ddp --dist-compat=azureml -N3 --ntasks-per-node=4 bash -c "$show"
[ "$RC" -eq 0 ] || { cat "$WORK/az.err" >&2; fail "srun exited $RC"; }
since "ddp+azureml, 3x4 tasks" 1 0 1
assert_count "$WORK/az.out" '^[0-9]* 10\.77\.0\.1:24[0-9]* 10\.77\.0\.1,10\.77\.0\.2,10\.77\.0\.3$' 12

# Rank 0 on the last node (arbitrary distribution): the order comes through too.
snapshot
RC=0
SLURM_HOSTFILE=<(printf 'tcn3\ntcn1\ntcn2\ntcn3\n') timeout 120 srun --mpi=none --dist-mode=ddp \
	--distribution=arbitrary -n4 bash -c "$show" >"$WORK/arb.out" 2>"$WORK/arb.err" || RC=$?
[ "$RC" -eq 0 ] || { cat "$WORK/arb.err" >&2; fail "srun --distribution=arbitrary exited $RC"; }
since "ddp, arbitrary, 4 tasks" 1 1 0
assert_count "$WORK/arb.out" '^[0-9]* 10\.77\.0\.3:24[0-9]* $' 4

# The shim alone (no plugin in the step): each task asks for itself.
snapshot
run_srun alone --mpi=none -N3 --ntasks-per-node=4 $SHIM --mode ddp -- bash -c "$show"
[ "$RC" -eq 0 ] || { cat "$WORK/alone.err" >&2; fail "srun exited $RC"; }
l=$(($(count REQUEST_STEP_LAYOUT) - LAYOUT))
echo "ctld_rpcs: the shim alone, 3x4 tasks: step layout $l"
[ "$l" -ge 12 ] || fail "the shim alone made $l layout queries for 12 tasks: is the plugin's table reaching it?"
assert_count "$WORK/alone.out" '^[0-9]* 10\.77\.0\.1:[0-9]* $' 12
