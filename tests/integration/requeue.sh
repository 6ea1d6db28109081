#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A job Slurm requeues (scontrol requeue; --requeue, preemption and node
# failure take the same path) gets a working rendezvous again: its first
# attempt requeues itself once; the second sees TORCHELASTIC_RESTART_COUNT=1,
# a step directory of its own with nothing from the first attempt in it,
# joins the process group over env:// and trains. No node drains.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/env_probe.py" "$WORK/"
PROBE=$WORK/env_probe.py
mkdir -p "$WORK/probe"

cat >job.sh <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp -N2 --ntasks-per-node=2 --requeue --open-mode=append
echo "ATTEMPT restart=\${SLURM_RESTART_COUNT:-unset}"
srun --mpi=$XMPI $PY $PROBE --out $WORK/probe --mark --init
if [ -z "\${SLURM_RESTART_COUNT:-}" ]; then
	scontrol requeue \$SLURM_JOB_ID
	sleep 120 # ended by the requeue
	echo "NOT-REQUEUED"
	exit 1
fi
srun --mpi=$XMPI $PY $TRAIN
JOB
# The second attempt starts 10 s after the requeue (release_requeued).
JOB=$(sbatch --parsable -o "$WORK/job.out" job.sh) || fail "sbatch job.sh was refused"
release_requeued "$JOB" 180
wait_job "$JOB" 300
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/job.out" >&2; fail "job ended $JOB_STATE"; }
assert_count "$WORK/job.out" '^ATTEMPT restart=unset$' 1
assert_count "$WORK/job.out" '^ATTEMPT restart=1$' 1
assert_not_contains "$WORK/job.out" NOT-REQUEUED
assert_ddp_ok "$WORK/job.out" 4
$PY - "$WORK/probe" <<'PY' || { cat "$WORK/job.out" >&2; fail "the second attempt's contract is wrong"; }
import json, os, sys
d = sys.argv[1]
recs = [json.load(open(os.path.join(d, n))) for n in os.listdir(d) if n.startswith("ENV-")]
by = {}
for r in recs:
    by.setdefault(r["env"]["TORCHELASTIC_RESTART_COUNT"], []).append(r)
assert sorted(by) == ["0", "1"] and all(len(v) == 4 for v in by.values()), sorted(by)
assert all(r["allreduce"] == 4 for r in recs), "a rank did not join"
assert all(r["env"]["TORCHELASTIC_USE_AGENT_STORE"] == "False" for r in recs)
assert all(int(r["env"]["TORCHELASTIC_MAX_RESTARTS"]) >= 1 for r in by["1"])
first = {r["step_dir"] for r in by["0"]}
assert not first & {r["step_dir"] for r in by["1"]}, "a step directory was reused"
stale = [f for r in by["1"] for f in r["step_files"] if f.startswith("mark.attempt0.")]
assert not stale, f"the second attempt found {stale}"
assert len({r["env"]["TORCHELASTIC_RUN_ID"] for r in recs}) == 1, "run id changed"
print("requeue: attempt 1 restart count", by["1"][0]["env"]["TORCHELASTIC_RESTART_COUNT"],
      "ports", by["0"][0]["env"]["MASTER_PORT"], by["1"][0]["env"]["MASTER_PORT"])
PY
assert_no_node_drained
