#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two jobs on the same nodes at the same time, each waiting for the other
# before it finishes: both train, on different ports.
source "$(dirname "$0")/lib.sh"

submit() {
	local me=$1 other=$2
	cat >"job_$me.sh" <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp -N 2 --ntasks-per-node=2 -w tcn1,tcn2
srun $PY $TRAIN --announce $WORK/$me.ready --wait-for $WORK/$other.ready
JOB
	sbatch --parsable -o "$WORK/$me.out" "job_$me.sh"
}
job_a=$(submit a b) || fail "sbatch a refused"
job_b=$(submit b a) || fail "sbatch b refused"
wait_job "$job_a"
state_a=$JOB_STATE
wait_job "$job_b"
[ "$state_a" = COMPLETED ] && [ "$JOB_STATE" = COMPLETED ] ||
	{ cat "$WORK"/*.out >&2; fail "jobs ended $state_a and $JOB_STATE"; }
assert_ddp_ok "$WORK/a.out" 4
assert_ddp_ok "$WORK/b.out" 4
port_a=$(sed -n 's/.* master=[^:]*:\([0-9]*\).*/\1/p' "$WORK/a.out" | sort -u)
port_b=$(sed -n 's/.* master=[^:]*:\([0-9]*\).*/\1/p' "$WORK/b.out" | sort -u)
[ "$port_a" != "$port_b" ] || fail "both jobs used port $port_a"
