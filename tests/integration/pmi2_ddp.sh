#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# srun --mpi=pmi2, the exchange on a Slurm without PMIx (Debian's 26.05):
# ranks, nodes and the master from Slurm's PMI2 and one fence; the layout
# from PMI_process_mapping, also when uneven or cyclic.
source "$(dirname "$0")/lib.sh"

run_srun train --mpi=pmi2 --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "srun exited $RC"; }
assert_ddp_ok "$WORK/train.out" 6

run_srun uneven --mpi=pmi2 --dist-mode=ddp -N3 -n5 --distribution=cyclic $PY "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/uneven.err" >&2; fail "srun exited $RC"; }
assert_ddp_ok "$WORK/uneven.out" 5

# Every task's place as the shim tells it is Slurm's own.
run_srun place --mpi=pmi2 --dist-mode=ddp -N3 -n7 --distribution=cyclic bash -c \
	'echo "PLACE $RANK=$SLURM_PROCID $LOCAL_RANK=$SLURM_LOCALID $GROUP_RANK=$SLURM_NODEID $LOCAL_WORLD_SIZE $WORLD_SIZE"'
[ "$RC" -eq 0 ] || { cat "$WORK/place.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/place.out" '^PLACE ' 7
grep '^PLACE ' "$WORK/place.out" | while read -r _ rank local node lsize world; do
	[ "${rank%=*}" = "${rank#*=}" ] && [ "${local%=*}" = "${local#*=}" ] &&
		[ "${node%=*}" = "${node#*=}" ] && [ "$world" = 7 ] ||
		fail "a task's place differs from Slurm's: $rank $local $node $world"
	on_node=$(grep -c "^PLACE [0-9=]* [0-9=]* ${node#*=}=" "$WORK/place.out")
	[ "$lsize" = "$on_node" ] ||
		fail "node ${node#*=} runs $on_node tasks but LOCAL_WORLD_SIZE is $lsize"
done
