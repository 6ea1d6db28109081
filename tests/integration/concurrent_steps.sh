#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two steps of one job on the same nodes at the same time, each waiting for
# the other before it finishes: both train, on different ports.
source "$(dirname "$0")/lib.sh"

cat >job.sh <<JOB
#!/bin/bash
#SBATCH -N 2 --ntasks-per-node=2
srun --overlap --mpi=$XMPI --dist-mode=ddp -n4 -o $WORK/a.out $PY $TRAIN --announce $WORK/a.ready --wait-for $WORK/b.ready &
srun --overlap --dist-mode=ddp -n4 -o $WORK/b.out $PY $TRAIN --announce $WORK/b.ready --wait-for $WORK/a.ready &
wait
JOB
run_sbatch "$WORK/job.out" job.sh
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK"/*.out >&2; fail "job ended $JOB_STATE"; }
assert_ddp_ok "$WORK/a.out" 4
assert_ddp_ok "$WORK/b.out" 4
port_a=$(sed -n 's/.* master=[^:]*:\([0-9]*\).*/\1/p' "$WORK/a.out" | sort -u)
port_b=$(sed -n 's/.* master=[^:]*:\([0-9]*\).*/\1/p' "$WORK/b.out" | sort -u)
[ "$port_a" != "$port_b" ] || fail "both steps used port $port_a"
