#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# srun --mpi=pmix: ranks and the master come from PMIx and one fence. On a
# Slurm built without its PMIx plugin (Debian's 26.05) srun refuses
# --mpi=pmix itself before any task starts; the same training runs through
# PMI2 there (pmi2_ddp).
source "$(dirname "$0")/lib.sh"

if [ "$XMPI" = pmix ]; then
	run_srun train --mpi=pmix --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN"
	[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "srun exited $RC"; }
	assert_ddp_ok "$WORK/train.out" 6
else
	echo "srun_pmix: Slurm $(sinfo -V | awk '{print $2}') has no PMIx plugin: checking srun refuses it"
	run_srun train --mpi=pmix --dist-mode=ddp -N3 --ntasks-per-node=2 bash -c "touch $WORK/started"
	[ "$RC" -ne 0 ] || fail "srun --mpi=pmix exited 0 on a Slurm without PMIx"
	assert_contains "$WORK/train.err" "pmix"
	[ ! -e "$WORK/started" ] || fail "a task started"
	assert_no_node_drained
fi
