#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Without --dist-mode the plugin leaves the job alone; --dist-mode=none turns
# it off for one step of a ddp batch job.
source "$(dirname "$0")/lib.sh"

run_srun plain -N2 -n2 env
[ "$RC" -eq 0 ] || fail "plain srun exited $RC"
assert_count "$WORK/plain.out" '^SLURM_PROCID=' 2
for var in MASTER_ADDR MASTER_PORT RANK= WORLD_SIZE DIST_SHIM GLOO_SOCKET_IFNAME; do
	assert_not_contains "$WORK/plain.out" "$var"
done

cat >job.sh <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp -N 2 --ntasks-per-node=1
echo "batch script: \$(env | grep -cE '^(MASTER_ADDR|RANK|DIST_SHIM_[A-Z0-9_]*)=')"
srun --dist-mode=none env | grep -E '^(MASTER_|RANK=|DIST_SHIM|SLURM_PROCID)' | sed 's/^/none: /'
srun env | grep -E '^(MASTER_ADDR|RANK=|DIST_SHIM)' | sed 's/^/inherited: /'
JOB
run_sbatch "$WORK/job.out" job.sh
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/job.out" >&2; fail "job ended $JOB_STATE"; }
assert_count "$WORK/job.out" '^none: SLURM_PROCID=' 2
assert_count "$WORK/job.out" '^none: \(MASTER_\|RANK=\|DIST_SHIM\)' 0
# The batch script itself is not wrapped, the steps inside it are.
assert_count "$WORK/job.out" '^batch script: 0$' 1
assert_count "$WORK/job.out" '^inherited: MASTER_ADDR=10.77.0.1$' 2
assert_count "$WORK/job.out" '^inherited: RANK=' 2
assert_count "$WORK/job.out" 'DIST_SHIM' 0
