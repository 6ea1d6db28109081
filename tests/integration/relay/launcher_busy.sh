#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rank 0's launcher in launcher_relay.sh: publishes the relay's port (its
# parent, the shim, listens on it), waits until the waiting task is in and
# a stranger holds a connection, then counts the shim's CPU time over 3 s;
# says whether it can read the relay's key.
W=$1
port=
for _ in $(seq 100); do
	port=$(ss -Hltnp | sed -n "s/.*:\([0-9][0-9]*\) .*pid=$PPID,.*/\1/p" | head -n 1)
	[ -n "$port" ] && [ "$(ss -Htn state established "( sport = :$port )" | wc -l)" -ge 1 ] && break
	sleep 0.2
done
echo "$SLURM_JOB_ID $port" >"$W/busy.port.tmp" && mv "$W/busy.port.tmp" "$W/busy.port"
# Issue 24: the key srun's plugin gave the step is neither in the launcher's
# environment nor in what /proc shows of its parent's, the shim's.
env | grep -q '^SLURM_DIST_RELAY_KEY=' && echo "KEY-IN-LAUNCHER-ENV"
tr '\0' '\n' </proc/$PPID/environ | grep -q '^SLURM_DIST_RELAY_KEY=[0-9a-f]' &&
	echo "KEY-IN-SHIM-ENVIRON"
for _ in $(seq 300); do [ -e "$W/busy.held" ] && break; sleep 0.2; done
t1=$(awk '{print $14 + $15}' /proc/$PPID/stat)
sleep 3
t2=$(awk '{print $14 + $15}' /proc/$PPID/stat)
echo "SHIM-CPU-TICKS $((t2 - t1))"
exit 5
