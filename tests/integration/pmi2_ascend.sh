#!/bin/bash
# --dist-mode=ascend under srun --mpi=pmi2: every node's NPUs (its
# hccn.conf) reach every task through PMI2's fence.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/ascend_check.py" "$WORK/"
export DIST_HCCN_CONF=/tmp/dist-test-hccn-pmi2.conf

run_srun setup -N3 --ntasks-per-node=1 bash -c '
	k=${SLURMD_NODENAME#tcn}
	for d in 0 1 2 3 4 5 6 7; do
		echo "address_$d=192.168.$((100 + d)).$k"
		echo "netmask_$d=255.255.255.0"
	done >'"$DIST_HCCN_CONF"
[ "$RC" -eq 0 ] || fail "could not write the hccn.conf files"

run_srun two --mpi=pmi2 --dist-mode=ascend -N3 --ntasks-per-node=2 $PY "$WORK/ascend_check.py"
[ "$RC" -eq 0 ] || { cat "$WORK/two.err" >&2; fail "srun exited $RC"; }
for k in 1 2 3; do
	assert_count "$WORK/two.out" "^ASC-OK rank=[0-5] server=10\.77\.0\.$k device=[01] ip=192\.168\.10[01]\.$k host=tcn$k$" 2
done
run_srun cleanup -N3 --ntasks-per-node=1 rm -f "$DIST_HCCN_CONF"
