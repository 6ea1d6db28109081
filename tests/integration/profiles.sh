#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-compat: launch lines and scripts written for a platform run
# unchanged, with real PyTorch over gloo and GPUs from Slurm's gres.
source "$(dirname "$0")/lib.sh"
use_torchrun_compat
cp "$TESTS_DIR/ma_train.py" "$TESTS_DIR/az_train.py" "$WORK/"
# Debian's torch 1.13 launchers crash on their default --redirects/--tee
# (../shared/guide/slurm-facts.md); torchrun's agent also looks up the
# node's unresolvable name three times at exit, 10 s each by default.
export PET_REDIRECTS=9:1 PET_TEE=9:1 RES_OPTIONS="timeout:1 attempts:1"

# Two-node steps may land on any two of the three nodes (one may still be
# completing the job before): the addresses are matched as any of them.

# TI-ONE: one task per node, its documented launch line verbatim.
run_srun tione --dist-mode=ddp --dist-compat=tione -N2 --ntasks-per-node=1 --gpus-per-node=2 \
	bash -c "exec $PY -m torch.distributed.launch --nproc_per_node \$GPU_NUM_PER_NODE --nnodes \$WORLD_SIZE --node_rank \$RANK --master_addr \$MASTER_ADDR --master_port \$MASTER_PORT $TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/tione.err" >&2; fail "TI-ONE launch exited $RC"; }
assert_ddp_ok "$WORK/tione.out" 4

run_srun tione_env --dist-mode=ddp --dist-compat=tione -N2 --ntasks-per-node=1 --gpus-per-node=2 env
assert_count "$WORK/tione_env.out" '^WORLD_SIZE=2$' 2
assert_count "$WORK/tione_env.out" '^RANK=[01]$' 2
assert_count "$WORK/tione_env.out" '^GPU_NUM=4$' 2
assert_count "$WORK/tione_env.out" '^GPU_NUM_PER_NODE=2$' 2
assert_count "$WORK/tione_env.out" '^NODE_LIST=10\.77\.0\.[1-3]:2,10\.77\.0\.[1-3]:2$' 2
assert_count "$WORK/tione_env.out" '^NODE_IP_SLOT_LIST=10\.77\.0\.[1-3]:2,10\.77\.0\.[1-3]:2$' 2

# ModelArts: the start file gets --init_method (+ --rank/--world_size on several nodes).
run_srun ma2 --mpi=$XMPI --dist-mode=ddp --dist-compat=modelarts -N2 --ntasks-per-node=1 \
	$PY "$WORK/ma_train.py"
[ "$RC" -eq 0 ] || { cat "$WORK/ma2.err" >&2; fail "ModelArts 2-node run exited $RC"; }
assert_count "$WORK/ma2.out" '^MA-OK rank=[01] world=2 init=tcp://10\.77\.0\.[1-3]:24[0-9]*$' 2
run_srun ma1 --dist-mode=ddp --dist-compat=modelarts -N1 -n1 $PY "$WORK/ma_train.py"
[ "$RC" -eq 0 ] || { cat "$WORK/ma1.err" >&2; fail "ModelArts 1-node run exited $RC"; }
assert_count "$WORK/ma1.out" '^MA-OK rank=0 world=1 init=tcp://' 1

# Azure ML: a script that reads NODE_RANK.
run_srun az --mpi=$XMPI --dist-mode=ddp --dist-compat=azureml -N2 --ntasks-per-node=2 \
	$PY "$WORK/az_train.py"
[ "$RC" -eq 0 ] || { cat "$WORK/az.err" >&2; fail "Azure-style run exited $RC"; }
assert_count "$WORK/az.out" '^AZ-OK rank=[01] node_rank=0 master_node=10\.77\.0\.[1-3]:24' 2
assert_count "$WORK/az.out" '^AZ-OK rank=[23] node_rank=1 master_node=10\.77\.0\.[1-3]:24' 2

# Kubeflow: torchrun with no arguments at all, everything from PET_*.
run_srun kf --dist-mode=ddp --dist-compat=kubeflow -N2 --ntasks-per-node=1 --gpus-per-node=2 \
	$PY -m torch.distributed.run "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/kf.err" >&2; fail "Kubeflow-style torchrun exited $RC"; }
assert_ddp_ok "$WORK/kf.out" 4
