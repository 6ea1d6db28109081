#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-check=net with real faults. A node that drops TCP to the training
# ports (an nftables rule in its network namespace: Slurm's own traffic still
# passes) makes the step fail within the check's bound, naming the node and
# each path it cannot use, with no program started; without the check the
# same training hangs in init_process_group. A node whose named data
# interface is down is named too. And on a healthy cluster the check passes
# and the training runs.
source "$(dirname "$0")/lib.sh"

# The site's range (the fixture's port_range=24000-24999, lib.sh).
readonly TRAIN_PORTS=24000-24999
ns() { echo "/run/netns/tc-$1"; }

cleanup() {
	nsenter --net="$(ns tcn2)" nft delete table inet distcheck 2>/dev/null || true
	for k in 1 2 3; do ip link del "tcdv$k" 2>/dev/null || true; done
	ip link del tcdata 2>/dev/null || true
}
trap cleanup EXIT

# Healthy: the check passes, says so once with --dist-explain, and the
# training runs on every rank.
run_srun ok --mpi=$XMPI --dist-mode=ddp --dist-check=net --dist-explain -N3 --ntasks-per-node=2 \
	$PY "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/ok.err" >&2; fail "srun exited $RC on a healthy cluster"; }
assert_ddp_ok "$WORK/ok.out" 6
assert_count "$WORK/ok.err" "network check: 3 nodes reached the master 10.77.0.1:" 1

# Given to sbatch, the check reaches the job's srun steps.
cat >job.sh <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp --dist-check=net --dist-explain -N 3 --ntasks-per-node=1
srun --mpi=$XMPI true
JOB
run_sbatch "$WORK/job.out" job.sh
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/job.out" >&2; fail "the checked job ended $JOB_STATE"; }
assert_count "$WORK/job.out" "network check: 3 nodes reached the master" 1

# tcn2 drops every TCP packet it sends to the training ports.
nsenter --net="$(ns tcn2)" nft -f - <<NFT
table inet distcheck {
	chain out {
		type filter hook output priority 0;
		tcp dport $TRAIN_PORTS drop
	}
}
NFT

start=$SECONDS
RC=0
timeout 90 srun --mpi=$XMPI --dist-mode=ddp --dist-check=net:3 -N3 --ntasks-per-node=2 \
	bash -c "touch $WORK/started-\$SLURM_PROCID; exec $PY $TRAIN" \
	>"$WORK/fault.out" 2>"$WORK/fault.err" || RC=$?
echo "check_net: the failing step ended after $((SECONDS - start)) s"
[ "$RC" -ne 124 ] || fail "the step with --dist-check=net hung (killed after 90 s)"
[ "$RC" -ne 0 ] || fail "srun exited 0 although tcn2 cannot reach the training ports"
[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a task started the program: $(ls "$WORK")"
assert_count "$WORK/fault.err" "network check: .* cannot reach " 2
assert_contains "$WORK/fault.err" "network check: tcn2 (10.77.0.2 via ens5) cannot reach the master tcn1 at 10.77.0.1:24"
assert_contains "$WORK/fault.err" "network check: tcn2 (10.77.0.2 via ens5) cannot reach the next node of the ring tcn3 at 10.77.0.3:24"
assert_contains "$WORK/fault.err" "no answer in 3 s"
assert_contains "$WORK/fault.err" "the network check failed on 1 of 3 nodes"
assert_no_node_drained

# The same training without the check: it hangs at its first rendezvous
# (torch's default timeout is 30 minutes); 25 s show it.
RC=0
timeout 25 srun --mpi=$XMPI --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN" \
	>"$WORK/hang.out" 2>"$WORK/hang.err" || RC=$?
[ "$RC" -eq 124 ] || { cat "$WORK/hang.err" >&2; fail "without the check srun exited $RC, expected a hang"; }
deadline=$((SECONDS + 60))
while squeue -h | grep -q .; do
	[ $SECONDS -lt $deadline ] || fail "the hung step's job did not end"
	scancel -u root 2>/dev/null || true
	sleep 1
done
nsenter --net="$(ns tcn2)" nft delete table inet distcheck

# A data network beside Slurm's (10.78.0.K on data0); the user names it.
ip link add tcdata type bridge
ip link set tcdata up
for k in 1 2 3; do
	ip link add "tcdv$k" type veth peer name "tcdp$k"
	ip link set "tcdv$k" master tcdata up
	ip link set "tcdp$k" netns "tc-tcn$k"
	nsenter --net="$(ns tcn$k)" ip link set "tcdp$k" name data0
	nsenter --net="$(ns tcn$k)" ip addr add "10.78.0.$k/24" dev data0
	nsenter --net="$(ns tcn$k)" ip link set data0 up
done
export GLOO_SOCKET_IFNAME=data0
run_srun data_up --mpi=$XMPI --dist-mode=ddp --dist-check=net -N3 --ntasks-per-node=1 \
	bash -c "touch $WORK/data-started-\$SLURM_PROCID"
[ "$RC" -eq 0 ] || { cat "$WORK/data_up.err" >&2; fail "the check failed with data0 up on every node"; }
[ "$(ls "$WORK"/data-started-* | wc -l)" -eq 3 ] || fail "not every task ran with data0 up"
rm -f "$WORK"/data-started-*

nsenter --net="$(ns tcn3)" ip link set data0 down
run_srun data_down --mpi=$XMPI --dist-mode=ddp --dist-check=net -N3 --ntasks-per-node=1 \
	bash -c "touch $WORK/data-started-\$SLURM_PROCID"
unset GLOO_SOCKET_IFNAME
[ "$RC" -ne 0 ] || fail "srun exited 0 although tcn3's data0 is down"
[ -z "$(ls "$WORK"/data-started-* 2>/dev/null)" ] || fail "a task started with tcn3's data0 down"
assert_contains "$WORK/data_down.err" "network check: tcn3: interface data0 (GLOO_SOCKET_IFNAME or NCCL_SOCKET_IFNAME) is down or has no IPv4 address here"
# tcn3's answers to data0 addresses have no way back either: tcn2's path
# to it (the ring) fails as well; every line names tcn3.
assert_count "$WORK/data_down.err" "network check: " 2
assert_count "$WORK/data_down.err" "network check: .*tcn3" 2
assert_contains "$WORK/data_down.err" "network check: tcn2 (10.78.0.2 via data0) cannot reach the next node of the ring tcn3 at 10.77.0.3:"
assert_contains "$WORK/data_down.err" "the network check failed on 2 of 3 nodes"
assert_no_node_drained
