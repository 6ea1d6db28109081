#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An invalid mode: one clear line, non-zero exit, no task started, no node drained.
source "$(dirname "$0")/lib.sh"

marker_cmd="touch $WORK/started"
expect_refused() {
	local what=$1 err=$2
	[ "$RC" -ne 0 ] || fail "$what exited 0"
	assert_contains "$err" "invalid --dist-mode '$3': valid modes are none|ddp|mpi|ps|ascend"
	[ ! -e "$WORK/started" ] || fail "$what started a task"
}

run_srun bogus --dist-mode=bogus -N2 -n2 bash -c "$marker_cmd"
expect_refused "srun --dist-mode=bogus" "$WORK/bogus.err" bogus

# A name reserved for a later mode is refused the same way.
run_srun planned --dist-mode=ray -N1 bash -c "$marker_cmd"
expect_refused "srun --dist-mode=ray" "$WORK/planned.err" ray

# The value sbatch hands to every srun through the environment is checked again.
SLURM_SPANK__SLURM_SPANK_OPTION_dist_dist_mode=bogus run_srun env_route -N1 bash -c "$marker_cmd"
expect_refused "srun with a bogus inherited mode" "$WORK/env_route.err" bogus

RC=0
timeout 60 sbatch --dist-mode=bogus --wrap "$marker_cmd" >"$WORK/sbatch.out" 2>"$WORK/sbatch.err" || RC=$?
expect_refused "sbatch --dist-mode=bogus" "$WORK/sbatch.err" bogus
[ ! -s "$WORK/sbatch.out" ] || fail "sbatch printed a job id: $(cat "$WORK/sbatch.out")"

assert_no_node_drained
