#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-check values and combinations that cannot work: one line saying
# what is wrong and how to fix it, non-zero, no task started, no node drained.
source "$(dirname "$0")/lib.sh"

refused() {
	local name=$1 expect=$2
	shift 2
	run_srun "$name" "$@" -N2 -n2 bash -c "touch $WORK/started-$name-\$SLURM_PROCID"
	[ "$RC" -ne 0 ] || fail "$name: srun exited 0"
	assert_contains "$WORK/$name.err" "$expect"
	[ -z "$(ls "$WORK"/started-"$name"-* 2>/dev/null)" ] || fail "$name: a task started"
}

refused unknown "--dist-check: unknown check 'bogus' (known: net, net:SECONDS, none" \
	--mpi=$XMPI --dist-mode=ddp --dist-check=bogus
refused zero "--dist-check: invalid timeout '0': expected seconds, 1 to 300" \
	--mpi=$XMPI --dist-mode=ddp --dist-check=net:0
refused no_mode "--dist-check needs --dist-mode" --mpi=$XMPI --dist-check=net
refused no_pmi "--dist-check=net gathers every node's result through PMIx or PMI2: launch with --mpi=pmix or --mpi=pmi2" \
	--mpi=none --dist-mode=ddp --dist-check=net
# The shim alone takes the same check.
run_srun shim_bad --mpi=$XMPI -N2 -n2 $SHIM --mode ddp --check netz -- touch "$WORK/started-shim"
[ "$RC" -ne 0 ] || fail "dist-shim --check netz exited 0"
assert_contains "$WORK/shim_bad.err" "--check: unknown check 'netz'"
[ ! -e "$WORK/started-shim" ] || fail "dist-shim --check netz started the program"
# ... and passes where the step is healthy, under the standalone form.
run_srun shim_ok --mpi=$XMPI -N2 -n2 $SHIM --mode ddp --check net:2 -- touch "$WORK/shim-ran"
[ "$RC" -eq 0 ] || { cat "$WORK/shim_ok.err" >&2; fail "dist-shim --check net:2 exited $RC"; }
[ -e "$WORK/shim-ran" ] || fail "dist-shim --check net:2 did not run the program"
# "none" is accepted and changes nothing.
run_srun none --mpi=$XMPI --dist-mode=ddp --dist-check=none -N2 -n2 true
[ "$RC" -eq 0 ] || { cat "$WORK/none.err" >&2; fail "--dist-check=none exited $RC"; }
assert_no_node_drained
