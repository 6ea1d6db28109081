#!/bin/bash
# --dist-mode=ps: every task binds the address:port TF_CONFIG gives it and
# connects to every other task's, across nodes, as TensorFlow's servers
# would; roles as documented; ModelArts' one-ps-one-worker-per-node layout.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/tf_connect.py" "$WORK/"

run_srun full --mpi=pmix --dist-mode=ps --dist-ps=2 --dist-chief --dist-evaluator \
	-N3 --ntasks-per-node=2 $PY "$WORK/tf_connect.py"
[ "$RC" -eq 0 ] || { cat "$WORK/full.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/full.out" '^TF-OK type=chief index=0 accepted=5 connected=4$' 1
assert_count "$WORK/full.out" '^TF-OK type=ps index=[01] accepted=5 connected=4$' 2
assert_count "$WORK/full.out" '^TF-OK type=worker index=[01] accepted=5 connected=4$' 2
assert_count "$WORK/full.out" '^TF-OK type=evaluator index=0 accepted=0 connected=5$' 1

# Each task's address is its own node's, on every node, and no two share a port there.
run_srun spec --mpi=pmix --dist-mode=ps -N3 --ntasks-per-node=2 printenv TF_CONFIG
[ "$RC" -eq 0 ] || fail "srun exited $RC"
[ "$(sort -u "$WORK/spec.out" | sed 's/"task":{[^}]*}//' | sort -u | wc -l)" -eq 1 ] ||
	fail "tasks disagree on the cluster spec: $(cat "$WORK/spec.out")"
spec=$(head -1 "$WORK/spec.out")
for n in 1 2 3; do
	[ "$(grep -o "\"10\.77\.0\.$n:[0-9]*\"" <<<"$spec" | sort -u | wc -l)" -eq 2 ] ||
		fail "node $n does not have two distinct task ports in $spec"
done

# ModelArts: one ps and one worker on every node.
run_srun layout --mpi=pmix --dist-mode=ps --dist-ps=3 -N3 --ntasks-per-node=2 --distribution=cyclic \
	bash -c 'echo "$(hostname) $(python3 -c "import json,os; print(json.loads(os.environ[\"TF_CONFIG\"])[\"task\"][\"type\"])")"'
[ "$RC" -eq 0 ] || { cat "$WORK/layout.err" >&2; fail "srun exited $RC"; }
for n in tcn1 tcn2 tcn3; do
	assert_count "$WORK/layout.out" "^$n ps$" 1
	assert_count "$WORK/layout.out" "^$n worker$" 1
done
