#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The walking skeleton: sbatch --dist-mode=ddp, plain srun inside, real DDP
# training across three nodes.
source "$(dirname "$0")/lib.sh"

cat >job.sh <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp -N 3 --ntasks-per-node=2
srun $PY $TRAIN
JOB
run_sbatch "$WORK/job.out" job.sh
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/job.out" >&2; fail "job ended $JOB_STATE"; }
assert_ddp_ok "$WORK/job.out" 6
assert_count "$WORK/job.out" 'local_rank=1 ' 3
