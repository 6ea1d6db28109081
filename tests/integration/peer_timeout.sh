#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A task that never reaches the exchange: the others give up after the
# timeout with a message saying so, abort the step, and nobody runs the
# program. Also the standalone form: dist-shim under srun without the plugin.
source "$(dirname "$0")/lib.sh"

run_srun late --mpi=$XMPI -N2 -n2 bash -c "
	if [ \$SLURM_PROCID = 1 ]; then sleep 40; fi
	exec $SHIM --mode ddp --timeout 3 -- touch $WORK/started-\$SLURM_PROCID"
[ "$RC" -ne 0 ] || fail "srun exited 0 although rank 1 never arrived"
assert_contains "$WORK/late.err" "rank 0: timed out after 3 s waiting for the step's other tasks"
[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a task ran the program: $(ls "$WORK")"
assert_no_node_drained
