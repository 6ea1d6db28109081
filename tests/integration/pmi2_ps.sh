#!/bin/bash
# --dist-mode=ps under srun --mpi=pmi2: every node's ports go through
# PMI2's fence; each task binds its TF_CONFIG address and connects to all.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/tf_connect.py" "$WORK/"

run_srun full --mpi=pmi2 --dist-mode=ps --dist-ps=2 --dist-chief --dist-evaluator \
	-N3 --ntasks-per-node=2 $PY "$WORK/tf_connect.py"
[ "$RC" -eq 0 ] || { cat "$WORK/full.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/full.out" '^TF-OK type=chief index=0 accepted=5 connected=4$' 1
assert_count "$WORK/full.out" '^TF-OK type=ps index=[01] accepted=5 connected=4$' 2
assert_count "$WORK/full.out" '^TF-OK type=worker index=[01] accepted=5 connected=4$' 2
assert_count "$WORK/full.out" '^TF-OK type=evaluator index=0 accepted=0 connected=5$' 1

# ModelArts' layout, one ps and one worker a node: cyclic ranks.
run_srun layout --mpi=pmi2 --dist-mode=ps --dist-ps=3 -N3 --ntasks-per-node=2 --distribution=cyclic \
	bash -c 'echo "$(hostname) $(python3 -c "import json,os; print(json.loads(os.environ[\"TF_CONFIG\"])[\"task\"][\"type\"])")"'
[ "$RC" -eq 0 ] || { cat "$WORK/layout.err" >&2; fail "srun exited $RC"; }
for n in tcn1 tcn2 tcn3; do
	assert_count "$WORK/layout.out" "^$n ps$" 1
	assert_count "$WORK/layout.out" "^$n worker$" 1
done
