#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shim execs the program in its own place: same pid as the task Slurm
# started, the program's exit status is the task's, and the DIST_SHIM_*
# hand-over variables are gone.
source "$(dirname "$0")/lib.sh"

run_srun pid --dist-mode=ddp -N1 -n1 bash -c 'echo "pid=$$ task_pid=$SLURM_TASK_PID"; env | grep -c "^DIST_SHIM_" || true'
[ "$RC" -eq 0 ] || { cat "$WORK/pid.err" >&2; fail "srun exited $RC"; }
read -r line <"$WORK/pid.out"
[ "${line#pid=}" != "$line" ] || fail "no pid line: $line"
pid=${line#pid=} && pid=${pid%% *}
[ "$line" = "pid=$pid task_pid=$pid" ] || fail "program is not the task's own process: $line"
assert_count "$WORK/pid.out" '^0$' 1

# The failure report's watcher (TORCHELASTIC_ERROR_FILE is set in mode ddp)
# is not the program's child: a program that waits for any child of its own
# finds none it did not start (bash's read is a builtin: no child of its own).
run_srun children --mpi=$XMPI --dist-mode=ddp -N1 -n2 bash -c \
	'c=; read -r c </proc/$$/task/$$/children; echo "children=[$c] errfile=${TORCHELASTIC_ERROR_FILE:+set}"'
[ "$RC" -eq 0 ] || { cat "$WORK/children.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/children.out" '^children=\[\] errfile=set$' 2

run_srun status --mpi=$XMPI --dist-mode=ddp -N2 -n2 bash -c 'exit $((SLURM_PROCID + 6))'
[ "$RC" -eq 7 ] || fail "srun exited $RC, expected the program's 7"
assert_contains "$WORK/status.err" "task 0: Exited with exit code 6"
