#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-bind (default auto) on the test cluster with fake GPUs from gres:
# every task of a node on a different GPU and on CPUs no other task of the
# node has, what it sees consistent with what it was given, OMP_NUM_THREADS
# set; --dist-bind=none leaves the task as Slurm started it; bad values refused.
source "$(dirname "$0")/lib.sh"
show='echo "$(hostname) $SLURM_LOCALID gpus=$CUDA_VISIBLE_DEVICES cpus=$(taskset -cp $$ | sed "s/.*: //") omp=$OMP_NUM_THREADS"'

# --gpus-per-node: each task sees the step's GPUs and is given the Nth.
run_srun per_node --mpi=$XMPI --dist-mode=ddp --dist-explain -N2 --ntasks-per-node=2 \
	--gpus-per-node=2 bash -c "$show"
[ "$RC" -eq 0 ] || { cat "$WORK/per_node.err" >&2; fail "srun exited $RC"; }
# The two nodes the step got: any two of the three (one may still be
# completing the job before).
step_nodes() { awk '{print $1}' "$1" | sort -u | tr '\n' ' '; }
nodes=$(step_nodes "$WORK/per_node.out")
[ "$(echo "$nodes" | wc -w)" -eq 2 ] || fail "not two nodes: $nodes"
for n in $nodes; do
	assert_count "$WORK/per_node.out" "^$n 0 gpus=0,1 cpus=0 omp=1$" 1
	assert_count "$WORK/per_node.out" "^$n 1 gpus=0,1 cpus=1 omp=1$" 1
	# --dist-explain: each task's line names its GPU (the Nth of the list).
	assert_count "$WORK/per_node.err" "^dist-shim: $n rank [0-3]: 0 *0 *0 " 1
	assert_count "$WORK/per_node.err" "^dist-shim: $n rank [0-3]: 1 *1 *1 " 1
done
# ... and the key variables each task will see.
first=$(grep -m1 -o '^    MASTER_ADDR=10\.77\.0\.[1-3]$' "$WORK/per_node.err")
assert_count "$WORK/per_node.err" "^$first\$" 4
assert_count "$WORK/per_node.err" '^    CUDA_VISIBLE_DEVICES=0,1$' 4
assert_count "$WORK/per_node.err" '^    OMP_NUM_THREADS=1$' 4

# One topology discovery a node: the first task shares it with the others.
run_srun shared --dist-mode=ddp -N2 --ntasks-per-node=2 bash -c \
	'test -s "$(echo ${TMPDIR:-/tmp}/slurm-dist.job$SLURM_JOB_ID.step$SLURM_STEP_ID.*/topology.xml)" && echo shared'
[ "$RC" -eq 0 ] || { cat "$WORK/shared.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/shared.out" '^shared$' 4

# One plan a node: the first task plans every task of the node and shares it;
# the others take their line (the same CPUs as the explain lines above).
run_srun plan --mpi=$XMPI --dist-mode=ddp -N2 --ntasks-per-node=2 --gpus-per-node=2 bash -c \
	'd=$(echo ${TMPDIR:-/tmp}/slurm-dist.job$SLURM_JOB_ID.step$SLURM_STEP_ID.*); echo "$(hostname) $SLURM_LOCALID cpus=$(taskset -cp $$ | sed "s/.*: //")"; [ "$SLURM_LOCALID" = 0 ] && sed "s/^/$(hostname) plan: /" "$d/bind-plan"; true'
[ "$RC" -eq 0 ] || { cat "$WORK/plan.err" >&2; fail "srun exited $RC"; }
nodes=$(grep -v ' plan: ' "$WORK/plan.out" | awk '{print $1}' | sort -u | tr '\n' ' ')
[ "$(echo "$nodes" | wc -w)" -eq 2 ] || fail "not two nodes: $nodes"
for n in $nodes; do
	assert_count "$WORK/plan.out" "^$n plan: slurm-dist bind plan 1$" 1
	assert_count "$WORK/plan.out" "^$n plan: gpus 0,1$" 1
	assert_count "$WORK/plan.out" "^$n plan: 0 0 0 - 1 -1$" 1
	assert_count "$WORK/plan.out" "^$n plan: 1 1 1 - 1 -1$" 1
	assert_count "$WORK/plan.out" "^$n 1 cpus=1$" 1
done

# --gpus-per-task: Slurm isolates one GPU per task; the tasks of a node differ.
run_srun per_task --dist-mode=ddp -N1 --ntasks-per-node=2 --gpus-per-task=1 bash -c "$show"
[ "$RC" -eq 0 ] || { cat "$WORK/per_task.err" >&2; fail "srun exited $RC"; }
[ "$(sed -n 's/.* gpus=\([^ ]*\) .*/\1/p' "$WORK/per_task.out" | sort -u | wc -l)" -eq 2 ] ||
	fail "the tasks share a GPU: $(cat "$WORK/per_task.out")"
[ "$(sed -n 's/.* cpus=\([^ ]*\) .*/\1/p' "$WORK/per_task.out" | sort -u | wc -l)" -eq 2 ] ||
	fail "the tasks share CPUs: $(cat "$WORK/per_task.out")"

# none: as Slurm started it (task/none here: both CPUs), no OMP_NUM_THREADS.
run_srun none --dist-mode=ddp --dist-bind=none -N1 --ntasks-per-node=2 bash -c "$show"
[ "$RC" -eq 0 ] || fail "srun exited $RC"
assert_count "$WORK/none.out" "cpus=0,1 omp=$" 2

# What the user exported wins.
OMP_NUM_THREADS=7 run_srun user --dist-mode=ddp -N1 --ntasks-per-node=2 bash -c "$show"
assert_count "$WORK/user.out" " omp=7$" 2

run_srun bad --dist-mode=ddp --dist-bind=tight -N1 bash -c "touch $WORK/started"
[ "$RC" -ne 0 ] || fail "--dist-bind=tight exited 0"
assert_contains "$WORK/bad.err" "invalid --dist-bind 'tight': valid policies are auto|none"
[ ! -e "$WORK/started" ] || fail "a task started"
assert_no_node_drained
