#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One task per node running torchrun: the PET_* variables carry nnodes,
# node rank and the master, so torchrun needs only --nproc_per_node.
source "$(dirname "$0")/lib.sh"
use_torchrun_compat

# Debian's torch 1.13 on Python 3.11 crashes on torchrun's default
# --redirects/--tee (see ../shared/guide/slurm-facts.md); a map for a rank
# that does not exist avoids it without changing what is tested.
export PET_REDIRECTS=9:1 PET_TEE=9:1
# torchrun's agent looks up the unresolvable node name 3 times at exit.
export RES_OPTIONS="timeout:1 attempts:1"
run_srun train --dist-mode=ddp -N2 --ntasks-per-node=1 \
	$PY -m torch.distributed.run --nproc_per_node=2 "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "srun exited $RC"; }
assert_ddp_ok "$WORK/train.out" 4
