#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Node order: whatever node runs rank 0 (--distribution=arbitrary with a -w
# list out of order, -m plane), every task agrees with every other and with
# Slurm on the ranks, node ranks (rank 0's node is 0, then nodes by their
# lowest rank), the node table (AZ_BATCH_HOST_LIST) and the master (rank 0's
# node's address), under PMIx (where the release has it), PMI2 and no PMI.
source "$(dirname "$0")/lib.sh"

# addr of tcnK is 10.77.0.K (testcluster.sh).
check_order() {
	local file=$1 n=$2
	assert_count "$file" '^ORD ' "$n"
	sort -n -k3 "$file" | awk -v file="$file" '
	/^ORD / {
		host = $2; rank = $3; procid = $4; group = $5; lrank = $6; lsize = $7; master = $8
		nhosts = split($9, hosts, ",")
		if (rank != procid) bad = bad "\n rank " rank " is SLURM_PROCID " procid
		if (!(host in node)) { node[host] = nodes++; seen[host] = 0; addr[host] = "10.77.0." substr(host, 4) }
		if (rank == 0) rank0 = host
		if (group != node[host]) bad = bad "\n rank " rank " on " host ": node rank " group ", expected " node[host]
		if (lrank != seen[host]++) bad = bad "\n rank " rank " on " host ": local rank " lrank
		lsizes[rank] = lsize; hostof[rank] = host; masters[rank] = master
		if (hosts[group + 1] != addr[host]) bad = bad "\n rank " rank " on " host ": node table entry " group " is " hosts[group + 1]
		total++
	}
	END {
		for (r = 0; r < total; r++) {
			if (lsizes[r] != seen[hostof[r]]) bad = bad "\n rank " r ": local size " lsizes[r] ", node has " seen[hostof[r]]
			if (masters[r] !~ "^" addr[rank0] ":") bad = bad "\n rank " r ": master " masters[r] ", rank 0 runs on " rank0
		}
		if (bad != "") { print file ":" bad; exit 1 }
	}' || fail "ranks, node ranks or master disagree"
}

# shellcheck disable=SC2016 # expanded by the tasks
PRINT='echo "ORD $SLURMD_NODENAME $RANK $SLURM_PROCID $GROUP_RANK $LOCAL_RANK $LOCAL_WORLD_SIZE $MASTER_ADDR:$MASTER_PORT $AZ_BATCH_HOST_LIST"'
mpis=(none pmi2)
[ "$XMPI" = pmix ] && mpis+=(pmix)
for mpi in "${mpis[@]}"; do
	# Rank 0 on the last node, node 0 of Slurm (tcn1) second.
	run_srun "arb_$mpi" --mpi="$mpi" --dist-mode=ddp --dist-compat=azureml -n5 \
		--distribution=arbitrary -w tcn3,tcn1,tcn3,tcn2,tcn1 bash -c "$PRINT"
	[ "$RC" -eq 0 ] || { cat "$WORK/arb_$mpi.err" >&2; fail "--mpi=$mpi arbitrary: srun exited $RC"; }
	grep -q '^ORD tcn3 0 ' "$WORK/arb_$mpi.out" || fail "--mpi=$mpi: rank 0 is not on tcn3 (arbitrary)"
	check_order "$WORK/arb_$mpi.out" 5
	run_srun "plane_$mpi" --mpi="$mpi" --dist-mode=ddp --dist-compat=azureml -N3 -n7 \
		-m plane=2 -w tcn3,tcn2,tcn1 bash -c "$PRINT"
	[ "$RC" -eq 0 ] || { cat "$WORK/plane_$mpi.err" >&2; fail "--mpi=$mpi plane: srun exited $RC"; }
	check_order "$WORK/plane_$mpi.out" 7
done
assert_no_node_drained
