#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The launcher form's relay (issue 11, docs/security.md "launcher relay"):
# rank 0 refuses a stranger's connection, from a node outside the step and
# from one of its nodes without the step's key; an extra connection does
# not make it spin; a waiting task refuses a forged status from whoever
# holds the port first; Slurm's signals reach the launcher exactly once
# (scancel --signal, srun --signal); through an exchange every task gets
# the launcher's status; 40 idle connections from a stranger on rank 0's
# node do not keep the waiting task out; the launcher cannot read the key;
# with an OpenSSL that computes no MAC the step fails before the launcher.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR"/relay/* "$WORK/"
cc -o "$WORK/usr1_count" "$WORK/usr1_count.c" || fail "cc failed"

wait_file() {
	local deadline=$((SECONDS + $2))
	until [ -e "$1" ]; do
		[ $SECONDS -lt $deadline ] || fail "no $1 after $2 s"
		sleep 0.2
	done
}

# 1. Strangers and the busy loop. Before: a connection after all peers were
# in was never accepted and poll() spun (hundreds of ticks in 3 s), and
# nothing was checked of whoever connected.
RC=0
timeout 180 srun --dist-mode=mpi --dist-launcher -N2 -w tcn[1-2] --ntasks-per-node=1 \
	bash "$WORK/launcher_busy.sh" "$WORK" >"$WORK/busy.out" 2>"$WORK/busy.err" &
busy=$!
wait_file "$WORK/busy.port" 60
read -r job port <"$WORK/busy.port"
[ -n "$port" ] || fail "the launcher found no listening port of its shim"
timeout 60 srun -N1 -w tcn3 $PY "$WORK/stranger.py" forge 10.77.0.1 "$port" - \
	>"$WORK/stranger3.out" 2>&1 || true
timeout 60 srun --jobid="$job" --overlap -N1 -n1 -w tcn2 $PY "$WORK/stranger.py" forge \
	10.77.0.1 "$port" - >"$WORK/stranger2.out" 2>&1 || true
timeout 60 srun --jobid="$job" --overlap -N1 -n1 -w tcn2 $PY "$WORK/stranger.py" hold \
	10.77.0.1 "$port" "$WORK/busy.held" >"$WORK/holder.out" 2>&1 || true
wait "$busy" || RC=$?
[ "$RC" -eq 5 ] || { cat "$WORK/busy.err" >&2; fail "launcher step exited $RC, expected 5"; }
assert_contains "$WORK/busy.err" "task 1: Exited with exit code 5"
assert_contains "$WORK/stranger3.out" "STRANGER greeted=0 answer=eof"
assert_contains "$WORK/stranger2.out" "STRANGER greeted=20 answer=eof"
assert_contains "$WORK/busy.err" "launcher relay: refused a connection from 10.77.0.3: not one of the step's nodes"
assert_contains "$WORK/busy.err" "launcher relay: refused a connection from 10.77.0.2: it does not have the step's key"
assert_not_contains "$WORK/busy.out" "KEY-IN-LAUNCHER-ENV"
assert_not_contains "$WORK/busy.out" "KEY-IN-SHIM-ENVIRON"
ticks=$(sed -n 's/^SHIM-CPU-TICKS //p' "$WORK/busy.out")
[ -n "$ticks" ] || fail "no CPU count in $WORK/busy.out"
[ "$ticks" -lt 30 ] || fail "rank 0's shim used $ticks ticks of CPU in 3 s with a stranger connected (busy loop)"

# 2. A forged status: another user on rank 0's node holds every port of the
# site's range and answers as the old relay did with status 0. Rank 0
# cannot start (its ports are taken); the waiting task must not exit 0.
rm -f "$WORK/squat.ready" "$WORK/started"
timeout 120 srun -N1 -w tcn1 $PY "$WORK/squat.py" 24000 24999 "$WORK/squat.ready" 40 \
	>"$WORK/squat.out" 2>&1 &
squat=$!
wait_file "$WORK/squat.ready" 60
run_srun forged --dist-mode=mpi --dist-launcher -N2 -w tcn[1-2] --ntasks-per-node=1 \
	bash -c "touch $WORK/started"
kill "$squat" 2>/dev/null || true
wait "$squat" 2>/dev/null || true
[ "$RC" -ne 0 ] || fail "the step exited 0 with the relay's port held by another program"
[ ! -e "$WORK/started" ] || fail "the launcher ran"
assert_contains "$WORK/forged.err" "task 1: Exited with exit code 1"
assert_contains "$WORK/forged.err" "refused the launcher relay at 10.77.0.1:"

# 3. Signals reach the launcher once. Before: twice (Slurm signals every
# process of the step, and the shim forwarded the same signal again), and a
# waiting task died of USR1.
RC=0
rm -f "$WORK/usr1.job"
timeout 180 srun --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=1 \
	"$WORK/usr1_count" "$WORK/usr1.job" >"$WORK/scancel.out" 2>"$WORK/scancel.err" &
step=$!
wait_file "$WORK/usr1.job" 60
sleep 1
scancel --signal=USR1 "$(cat "$WORK/usr1.job")"
wait "$step" || RC=$?
[ "$RC" -eq 0 ] || { cat "$WORK/scancel.err" >&2; fail "scancel --signal=USR1: step exited $RC"; }
assert_count "$WORK/scancel.out" '^USR1-COUNT 1$' 1

rm -f "$WORK/usr1.job"
run_srun srun_signal --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=1 -t 2 \
	--signal=USR1@110 "$WORK/usr1_count" "$WORK/usr1.job"
[ "$RC" -eq 0 ] || { cat "$WORK/srun_signal.err" >&2; fail "srun --signal: step exited $RC"; }
assert_count "$WORK/srun_signal.out" '^USR1-COUNT 1$' 1

# 5. Idle connections (issue 24): a user on rank 0's node without the key
# opens 40 connections to the relay and says nothing, before the waiting
# task connects (tcn2 drops its packets to the site's range until then).
# Before: rank 0 checked 32 at once and closed the waiting task's at once,
# which took it for a refusal and exited 1 though the launcher exited 6.
ns() { echo "/run/netns/tc-$1"; }
drop_table() { nsenter --net="$(ns tcn2)" nft delete table inet distrelay 2>/dev/null || true; }
trap drop_table EXIT
nsenter --net="$(ns tcn2)" nft -f - <<NFT
table inet distrelay {
	chain out {
		type filter hook output priority 0;
		ip daddr 10.77.0.1 tcp dport 24000-24999 drop
	}
}
NFT
# Another user: nobody, with a directory it can write in.
idle_dir=$(mktemp -d)
chmod 1777 "$idle_dir"
cp "$WORK/idle_holder.py" "$idle_dir/"
chmod 644 "$idle_dir/idle_holder.py"
timeout 90 nsenter --net="$(ns tcn1)" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	$PY "$idle_dir/idle_holder.py" 10.77.0.1 24000 24999 40 "$idle_dir/flag" 40 \
	>"$WORK/idle_holder.out" 2>&1 &
holder=$!
sleep 0.5
RC=0
timeout 180 srun --dist-mode=mpi --dist-launcher -N2 -w tcn[1-2] --ntasks-per-node=1 \
	bash -c 'sleep 10; exit 6' >"$WORK/idle.out" 2>"$WORK/idle.err" &
idle_step=$!
wait_file "$idle_dir/flag" 60
sleep 1
drop_table
wait "$idle_step" || RC=$?
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true
rm -rf "$idle_dir"
[ "$RC" -eq 6 ] || { cat "$WORK/idle.err" "$WORK/idle_holder.out" >&2; fail "with 40 idle connections to the relay the step exited $RC, expected 6"; }
assert_contains "$WORK/idle_holder.out" "HOLDER port="
assert_contains "$WORK/idle.err" "task 1: Exited with exit code 6"
assert_contains "$WORK/idle.err" "it had not proved who it is when newer connections came"

# 6. An OpenSSL that computes no MAC (only the null provider, issue 24).
# Before: every MAC was zeros, every side's matched, and the step ran
# unauthenticated; now each task fails before the launcher starts.
cp "$SRC_DIR/tests/unit/openssl-null.cnf" "$WORK/"
rm -f "$WORK/started"
run_srun nomac --export=ALL,OPENSSL_CONF="$WORK/openssl-null.cnf" --dist-mode=mpi \
	--dist-launcher -N2 -w tcn[1-2] --ntasks-per-node=1 bash -c "touch $WORK/started"
[ "$RC" -ne 0 ] || fail "the step exited 0 with an OpenSSL that computes no MAC"
[ ! -e "$WORK/started" ] || fail "the launcher ran with an OpenSSL that computes no MAC"
assert_contains "$WORK/nomac.err" "OpenSSL cannot compute the launcher relay's HMAC-SHA-256 (OPENSSL_CONF=$WORK/openssl-null.cnf"

# 4. Through an exchange (key and a checked-free port in it), every task
# exits with the launcher's status.
run_srun exchange --mpi="$XMPI" --dist-mode=ddp --dist-launcher -N3 --ntasks-per-node=1 \
	bash -c 'sleep 1; exit 3'
[ "$RC" -eq 3 ] || { cat "$WORK/exchange.err" >&2; fail "srun --mpi=$XMPI exited $RC, expected 3"; }
for t in 0 1 2; do assert_contains "$WORK/exchange.err" "task $t: Exited with exit code 3"; done
assert_no_node_drained
