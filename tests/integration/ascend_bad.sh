#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=ascend refusals, each before anything starts, fast (no one
# waits out a timeout), naming the node where it matters.
source "$(dirname "$0")/lib.sh"
export DIST_HCCN_CONF=/tmp/dist-test-hccn.conf
marker="touch $WORK/started"

# hccn.conf on tcn1 and tcn2 (tcn2 lacks NPU 1's address), none on tcn3.
run_srun setup -w tcn1,tcn2,tcn3 -N3 --ntasks-per-node=1 bash -c '
	rm -f '"$DIST_HCCN_CONF"'
	case $SLURMD_NODENAME in
	tcn1) printf "address_0=192.168.100.1\naddress_1=192.168.101.1\n" >'"$DIST_HCCN_CONF"' ;;
	tcn2) printf "address_0=192.168.100.2\n" >'"$DIST_HCCN_CONF"' ;;
	esac'
[ "$RC" -eq 0 ] || fail "could not set up the hccn.conf files"

expect() {
	local name=$1 text=$2
	[ "$RC" -ne 0 ] || fail "$name exited 0"
	assert_contains "$WORK/$name.err" "$text"
	[ ! -e "$WORK/started" ] || fail "$name started a task"
}

run_srun no_ip --mpi=$XMPI --dist-mode=ascend -w tcn1,tcn2 -N2 --ntasks-per-node=2 bash -c "$marker"
expect no_ip "on tcn2: NPU 1 has no valid address_1=<ip> line in $DIST_HCCN_CONF"

run_srun no_file --mpi=$XMPI --dist-mode=ascend -w tcn1,tcn3 -N2 --ntasks-per-node=1 bash -c "$marker"
expect no_file "on tcn3: cannot read $DIST_HCCN_CONF: No such file or directory"

run_srun three --mpi=$XMPI --dist-mode=ascend -w tcn1 -N1 --ntasks-per-node=3 bash -c "$marker"
expect three "3 NPUs on this node: HCCL needs 1, 2, 4 or 8 a server"

ASCEND_RT_VISIBLE_DEVICES=3,4 run_srun groups --mpi=$XMPI --dist-mode=ascend -w tcn1 -N1 \
	--ntasks-per-node=2 bash -c "$marker"
expect groups "NPUs 3 and 4 are in different groups (0-3, 4-7): use 1, 2 or 4 NPUs inside one group, or all 8"

run_srun uneven --mpi=$XMPI --dist-mode=ascend -w tcn1,tcn2 -N2 -n3 bash -c "$marker"
expect uneven "HCCL needs the same on every server"

run_srun no_pmix --dist-mode=ascend -w tcn1 -N1 bash -c "$marker"
expect no_pmix "--dist-mode=ascend gathers what every node finds for it (ports, devices), which only PMIx or PMI2 can carry: launch with --mpi=pmix or --mpi=pmi2"

run_srun isolate_ddp --dist-mode=ddp --dist-npu-isolate -w tcn1 -N1 bash -c "$marker"
expect isolate_ddp "--dist-npu-isolate needs --dist-mode=ascend"

run_srun cleanup -w tcn1,tcn2,tcn3 -N3 --ntasks-per-node=1 rm -f "$DIST_HCCN_CONF"
assert_no_node_drained
