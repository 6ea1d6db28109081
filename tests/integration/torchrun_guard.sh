#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The classic mistake: torch's launcher started by several tasks of a node
# (--ntasks-per-node=2 torchrun --nproc_per_node=2: 4 workers per node, and
# PET_NNODES counting nodes, not tasks) is refused on every task with one
# line naming the right commands, before anything starts; asked for
# explicitly (DIST_TORCHRUN_PER_TASK=1), it starts.
source "$(dirname "$0")/lib.sh"

for launcher in "torchrun" "$PY -m torch.distributed.run" "$PY -m torch.distributed.launch"; do
	run_srun refused --dist-mode=ddp -N2 --ntasks-per-node=2 \
		$launcher --nproc_per_node=2 "$WORK/never.py"
	[ "$RC" -ne 0 ] || fail "$launcher in 2 tasks per node was not refused"
	assert_count "$WORK/refused.err" "^dist-shim: error: .*4 tasks on 2 nodes would each run torch's launcher" 1
	assert_contains "$WORK/refused.err" "srun --ntasks-per-node=1 torchrun --nproc_per_node=GPUS"
	# Refused before the launcher ran: it would have complained of the
	# missing script.
	assert_not_contains "$WORK/refused.err" "never.py"
done

# Asked for: the launcher starts (and only its version is asked).
DIST_TORCHRUN_PER_TASK=1 run_srun allowed --dist-mode=ddp -N1 --ntasks-per-node=2 \
	$PY -m torch.distributed.run --help
[ "$RC" -eq 0 ] || { cat "$WORK/allowed.err" >&2; fail "DIST_TORCHRUN_PER_TASK=1 did not allow it"; }
assert_count "$WORK/allowed.out" 'usage:' 2
assert_no_node_drained
