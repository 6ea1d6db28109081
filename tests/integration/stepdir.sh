#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The step's private directory (docs/security.md, "Step directory"): no
# other user can block it (a per-user name another user made first, in
# /tmp or in a sticky TMPDIR, changes nothing), each node and each step has
# its own even on a shared TMPDIR, and it is gone when the step ends.
source "$(dirname "$0")/lib.sh"
uid=$(id -u)
# mode mpi writes its hostfile in the step's directory and names it.
show='echo "DIR $(hostname) $(dirname "$HYDRA_HOST_FILE")"'
# No Open MPI 5+ mpirun on PATH: mode mpi then allows native launches in a
# step without PMIx (Debian's 26.05).
NOMPI=$(path_without_ompi bash dirname hostname)
# Steps of two nodes may get any two: the scheduler skips a node still
# completing the step before, so names are matched as tcn[1-3].

# Another user (uid 4242) made the old per-user names first, on every node's
# /tmp and in a sticky TMPDIR every node sees.
run_srun block -N"$TC_NODES" --ntasks-per-node=1 bash -c \
	"mkdir -p /tmp/slurm-dist.$uid && chmod 700 /tmp/slurm-dist.$uid && chown 4242 /tmp/slurm-dist.$uid"
[ "$RC" -eq 0 ] || fail "could not block /tmp/slurm-dist.$uid: $(cat "$WORK/block.err")"
mkdir -p "$WORK/sticky/slurm-dist.$uid"
chmod 1777 "$WORK/sticky"
chmod 700 "$WORK/sticky/slurm-dist.$uid"
chown 4242 "$WORK/sticky/slurm-dist.$uid"

PATH=$NOMPI run_srun tmp --mpi=$XMPI --dist-mode=mpi -N2 --ntasks-per-node=2 bash -c "$show"
[ "$RC" -eq 0 ] || fail "a step directory another user made in /tmp blocked the step: $(cat "$WORK/tmp.err")"
assert_count "$WORK/tmp.out" '^DIR ' 4

PATH=$NOMPI TMPDIR=$WORK/sticky run_srun sticky --mpi=$XMPI --dist-mode=mpi -N2 --ntasks-per-node=2 bash -c "$show"
[ "$RC" -eq 0 ] || fail "a step directory another user made in a sticky TMPDIR blocked the step: $(cat "$WORK/sticky.err")"
assert_count "$WORK/sticky.out" "^DIR tcn[1-3] $WORK/sticky/" 4

# A TMPDIR every node shares: one directory per node (the node's tasks
# agree on it), none shared between nodes, none left once the step ended.
mkdir -p "$WORK/shared"
chmod 700 "$WORK/shared"
PATH=$NOMPI TMPDIR=$WORK/shared run_srun shared --mpi=$XMPI --dist-mode=mpi -N2 --ntasks-per-node=2 bash -c "$show"
[ "$RC" -eq 0 ] || fail "srun on a shared TMPDIR exited $RC: $(cat "$WORK/shared.err")"
assert_count "$WORK/shared.out" "^DIR tcn[1-3] $WORK/shared/" 4
[ "$(sort -u "$WORK/shared.out" | wc -l)" -eq 2 ] ||
	fail "expected one directory per node: $(sort -u "$WORK/shared.out")"
[ "$(awk '{print $3}' "$WORK/shared.out" | sort -u | wc -l)" -eq 2 ] ||
	fail "two nodes used one directory on a shared TMPDIR: $(sort -u "$WORK/shared.out")"

# The exchange is read once per node (docs/design.md, "Reading the exchange
# once per node"): the node's first task leaves the step's layout and every
# node's record in the step directory, where each task of its node finds it.
# (That the others then ask PMI nothing is unit.wireup_shared's.)
kept='d=$(dirname "$TORCHELASTIC_ERROR_FILE")
echo "X $(hostname) $SLURM_LOCALID $(sed -n 2p "$d/exchange") $(grep -c "^value [0-9]* slurm-dist.node " "$d/exchange") $(stat -c %a "$d/exchange")"'
run_srun kept --mpi=$XMPI --dist-mode=ddp -N2 --ntasks-per-node=3 bash -c "$kept"
[ "$RC" -eq 0 ] || fail "ddp with three tasks a node exited $RC: $(cat "$WORK/kept.err")"
assert_count "$WORK/kept.out" '^X tcn[1-3] [012] layout 2 2 600$' 6

# Gone when the step ends (slurmstepd removes it as it exits: bounded wait).
gone() {
	local deadline=$((SECONDS + 30))
	while [ -n "$(ls -A "$1" | grep '^slurm-dist\.job' || true)" ]; do
		[ $SECONDS -lt $deadline ] || fail "step directories left in $1: $(ls -A "$1")"
		sleep 1
	done
}
gone "$WORK/shared"
gone "$WORK/sticky"
run_srun left -N"$TC_NODES" --ntasks-per-node=1 bash -c 'ls -d /tmp/slurm-dist.job* 2>/dev/null || true'
[ ! -s "$WORK/left.out" ] || fail "step directories left in the nodes' /tmp: $(cat "$WORK/left.out")"

# A TMPDIR where no directory can be made, even by root (the test cluster's
# jobs run as root): a mode with files refuses, naming it; ddp, which only
# shares the topology there, runs without.
PATH=$NOMPI TMPDIR=/proc run_srun ro_mpi --mpi=$XMPI --dist-mode=mpi -N2 --ntasks-per-node=1 \
	bash -c "touch $WORK/started"
[ "$RC" -ne 0 ] || fail "mode mpi ran without its step directory"
assert_contains "$WORK/ro_mpi.err" "cannot create the step's directory in /proc"
[ ! -e "$WORK/started" ] || fail "a task started without its step directory"
TMPDIR=/proc run_srun ro_ddp --dist-mode=ddp -N2 --ntasks-per-node=1 printenv RANK
[ "$RC" -eq 0 ] || fail "ddp without a step directory exited $RC: $(cat "$WORK/ro_ddp.err")"
assert_count "$WORK/ro_ddp.out" '^[01]$' 2

run_srun unblock -N"$TC_NODES" --ntasks-per-node=1 rm -rf "/tmp/slurm-dist.$uid"
assert_no_node_drained
