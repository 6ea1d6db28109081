#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Rank 0's launcher in launcher_relay.sh: publishes the relay's port (its
# parent, the shim, listens on it), waits until the waiting task is in and
# a stranger holds a connection, then counts the shim's CPU time over 3 s.
W=$1
port=
for _ in $(seq 100); do
	port=$(ss -Hltnp | sed -n "s/.*:\([0-9][0-9]*\) .*pid=$PPID,.*/\1/p" | head -n 1)
	[ -n "$port" ] && [ "$(ss -Htn state established "( sport = :$port )" | wc -l)" -ge 1 ] && break
	sleep 0.2
done
echo "$SLURM_JOB_ID $port" >"$W/busy.port.tmp" && mv "$W/busy.port.tmp" "$W/busy.port"
for _ in $(seq 300); do [ -e "$W/busy.held" ] && break; sleep 0.2; done
t1=$(awk '{print $14 + $15}' /proc/$PPID/stat)
sleep 3
t2=$(awk '{print $14 + $15}' /proc/$PPID/stat)
echo "SHIM-CPU-TICKS $((t2 - t1))"
exit 5
