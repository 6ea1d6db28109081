#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The plugin's hand-over variables cannot be set by the user to change what
# runs: a DIST_SHIM_ARGV0 left in the environment (the user's, an earlier
# step's, a shell's) never replaces the command, on either wrapping route
# nor for the shim started by hand, and a leftover DIST_SHIM_LAUNCHER does
# not turn a step into the launcher form.
source "$(dirname "$0")/lib.sh"
printf '#!/bin/sh\ntouch %s/hijacked\n' "$WORK" >"$WORK/evil.sh"
chmod +x "$WORK/evil.sh"

for value in "$WORK/evil.sh" "1:$WORK/evil.sh"; do
	DIST_SHIM_ARGV0=$value run_srun plugin --mpi=$XMPI --dist-mode=ddp -N2 --ntasks-per-node=1 \
		bash -c 'echo RAN $SLURM_PROCID ${DIST_SHIM_ARGV0-unset}'
	[ "$RC" -eq 0 ] || fail "srun with DIST_SHIM_ARGV0=$value exited $RC: $(cat "$WORK/plugin.err")"
	assert_count "$WORK/plugin.out" '^RAN [01] unset$' 2
	[ ! -e "$WORK/hijacked" ] || fail "DIST_SHIM_ARGV0=$value replaced the command"
done

DIST_SHIM_ARGV0=$WORK/evil.sh run_srun by_hand --mpi=$XMPI -N1 -n1 "$SHIM" --mode ddp -- \
	bash -c 'echo RAN ${DIST_SHIM_ARGV0-unset}'
[ "$RC" -eq 0 ] || fail "the shim by hand with DIST_SHIM_ARGV0 exited $RC: $(cat "$WORK/by_hand.err")"
assert_count "$WORK/by_hand.out" '^RAN unset$' 1
[ ! -e "$WORK/hijacked" ] || fail "DIST_SHIM_ARGV0 replaced the shim's command"

DIST_SHIM_LAUNCHER=1 run_srun launcher --mpi=$XMPI --dist-mode=ddp -N1 --ntasks-per-node=2 \
	bash -c 'echo RAN $SLURM_PROCID'
[ "$RC" -eq 0 ] || fail "a leftover DIST_SHIM_LAUNCHER changed the step: $(cat "$WORK/launcher.err")"
assert_count "$WORK/launcher.out" '^RAN ' 2
assert_no_node_drained
