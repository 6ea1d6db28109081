#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=ps: every task binds the address:port TF_CONFIG gives it and
# connects to every other task's, across nodes, as TensorFlow's servers
# would; roles as documented; ModelArts' one-ps-one-worker-per-node layout.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/tf_connect.py" "$WORK/"

run_srun full --mpi=$XMPI --dist-mode=ps --dist-ps=2 --dist-chief --dist-evaluator \
	-N3 --ntasks-per-node=2 $PY "$WORK/tf_connect.py"
[ "$RC" -eq 0 ] || { cat "$WORK/full.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/full.out" '^TF-OK type=chief index=0 accepted=5 connected=4$' 1
assert_count "$WORK/full.out" '^TF-OK type=ps index=[01] accepted=5 connected=4$' 2
assert_count "$WORK/full.out" '^TF-OK type=worker index=[01] accepted=5 connected=4$' 2
assert_count "$WORK/full.out" '^TF-OK type=evaluator index=0 accepted=0 connected=5$' 1

# Each task's address is its own node's, on every node, and no two share a port there.
run_srun spec --mpi=$XMPI --dist-mode=ps -N3 --ntasks-per-node=2 printenv TF_CONFIG
[ "$RC" -eq 0 ] || fail "srun exited $RC"
[ "$(sort -u "$WORK/spec.out" | sed 's/"task":{[^}]*}//' | sort -u | wc -l)" -eq 1 ] ||
	fail "tasks disagree on the cluster spec: $(cat "$WORK/spec.out")"
spec=$(head -1 "$WORK/spec.out")
for n in 1 2 3; do
	[ "$(grep -o "\"10\.77\.0\.$n:[0-9]*\"" <<<"$spec" | sort -u | wc -l)" -eq 2 ] ||
		fail "node $n does not have two distinct task ports in $spec"
done

# ModelArts: one ps and one worker on every node.
run_srun layout --mpi=$XMPI --dist-mode=ps --dist-ps=3 -N3 --ntasks-per-node=2 --distribution=cyclic \
	bash -c 'echo "$(hostname) $(python3 -c "import json,os; print(json.loads(os.environ[\"TF_CONFIG\"])[\"task\"][\"type\"])")"'
[ "$RC" -eq 0 ] || { cat "$WORK/layout.err" >&2; fail "srun exited $RC"; }
for n in tcn1 tcn2 tcn3; do
	assert_count "$WORK/layout.out" "^$n ps$" 1
	assert_count "$WORK/layout.out" "^$n worker$" 1
done

# ModelArts' TensorFlow start-file arguments, consistent with TF_CONFIG.
cat >"$WORK/ma_ps.py" <<'PY'
import argparse, json, os
p = argparse.ArgumentParser()
for flag in ("--task_index", "--ps_hosts", "--worker_hosts", "--job_name"):
    p.add_argument(flag, required=True)
a = p.parse_args()
c = json.loads(os.environ["TF_CONFIG"])
assert a.job_name == c["task"]["type"] and int(a.task_index) == c["task"]["index"], (a, c)
assert a.ps_hosts == ",".join(c["cluster"]["ps"]), (a.ps_hosts, c)
assert a.worker_hosts == ",".join(c["cluster"]["worker"]), (a.worker_hosts, c)
assert os.environ["MA_TASK_NAME"] == a.job_name and os.environ["TF_PS_HOSTS"] == a.ps_hosts
print(f"MA-PS-OK {a.job_name} {a.task_index}", flush=True)
PY
run_srun ma_ps --mpi=$XMPI --dist-mode=ps --dist-compat=modelarts --dist-ps=2 -N2 --ntasks-per-node=2 \
	--distribution=cyclic $PY "$WORK/ma_ps.py"
[ "$RC" -eq 0 ] || { cat "$WORK/ma_ps.err" >&2; fail "ModelArts PS run exited $RC"; }
assert_count "$WORK/ma_ps.out" '^MA-PS-OK ps [01]$' 2
assert_count "$WORK/ma_ps.out" '^MA-PS-OK worker [01]$' 2

# MindSpore: the chief is the scheduler.
run_srun ms --mpi=$XMPI --dist-mode=ps --dist-chief --dist-ps=2 --dist-compat=mindspore \
	-N2 --ntasks-per-node=2 bash -c 'echo "$SLURM_PROCID $MS_ROLE $MS_SCHED_HOST $MS_WORKER_NUM $MS_SERVER_NUM"'
[ "$RC" -eq 0 ] || { cat "$WORK/ms.err" >&2; fail "MindSpore-style run exited $RC"; }
# The scheduler is rank 0's node: any of the three (one may still be
# completing the job before).
sched=$(sed -n 's/^0 MS_SCHED \(10\.77\.0\.[1-3]\) 1 2$/\1/p' "$WORK/ms.out")
[ -n "$sched" ] || fail "no scheduler line: $(cat "$WORK/ms.out")"
assert_count "$WORK/ms.out" "^[12] MS_PSERVER ${sched//./\\.} 1 2\$" 2
assert_count "$WORK/ms.out" "^3 MS_WORKER ${sched//./\\.} 1 2\$" 1
