#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Slurm's own OCI containers (--container) with --dist-mode: refused before
# anything starts, with one line (issue 22). Without it, 22.05 drops the
# shim and runs the program without the contract, and 23.02+ starts the
# shim inside the image, where it is not. The bundle need not exist: srun,
# sbatch and salloc refuse before they ask for anything.
source "$(dirname "$0")/lib.sh"

marker_cmd="touch $WORK/started"
line="dist: --dist-mode cannot be used with Slurm's --container (/no/bundle) yet: the tasks would run without the contract"
expect_refused() { # WHAT ERR-FILE
	[ "$RC" -ne 0 ] || fail "$1 exited 0"
	assert_contains "$2" "$line"
	[ "$(grep -c "dist:" "$2")" -eq 1 ] || fail "$1: more than one line from the plugin: $(cat "$2")"
	[ ! -e "$WORK/started" ] || fail "$1 started a task"
}

run_srun srun --container=/no/bundle --dist-mode=ddp -N2 -n2 bash -c "$marker_cmd"
expect_refused "srun --container --dist-mode=ddp" "$WORK/srun.err"

# A job submitted with --container hands it to every srun in it.
SLURM_CONTAINER=/no/bundle run_srun inherited --dist-mode=mpi -N1 bash -c "$marker_cmd"
expect_refused "srun --dist-mode=mpi in a --container job" "$WORK/inherited.err"

RC=0
timeout 60 sbatch --container=/no/bundle --dist-mode=ddp --wrap "$marker_cmd" >"$WORK/sbatch.out" 2>"$WORK/sbatch.err" || RC=$?
expect_refused "sbatch --container --dist-mode=ddp" "$WORK/sbatch.err"
[ ! -s "$WORK/sbatch.out" ] || fail "sbatch printed a job id: $(cat "$WORK/sbatch.out")"

# salloc: Slurm itself refuses --container without
# LaunchParameters=use_interactive_step (the test cluster's case), before
# the plugin's check; with it, the plugin refuses.
RC=0
timeout 60 salloc --container=/no/bundle --dist-mode=ddp -N1 bash -c "$marker_cmd" >"$WORK/salloc.out" 2>"$WORK/salloc.err" || RC=$?
if grep -q "container requires LaunchParameters=use_interactive_step" "$WORK/salloc.err"; then
	[ "$RC" -ne 0 ] && [ ! -e "$WORK/started" ] || fail "salloc --container started or exited 0"
else
	expect_refused "salloc --container --dist-mode=ddp" "$WORK/salloc.err"
fi

# The same steps without --container are not refused (the check is not
# always on).
run_srun plain --dist-mode=ddp -N1 bash -c "$marker_cmd"
[ "$RC" -eq 0 ] || { cat "$WORK/plain.err" >&2; fail "srun --dist-mode=ddp without --container exited $RC"; }
[ -e "$WORK/started" ] || fail "the step without --container did not start"
assert_no_node_drained
