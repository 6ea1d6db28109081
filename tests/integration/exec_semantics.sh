#!/bin/bash
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

run_srun status --mpi=$XMPI --dist-mode=ddp -N2 -n2 bash -c 'exit $((SLURM_PROCID + 6))'
[ "$RC" -eq 7 ] || fail "srun exited $RC, expected the program's 7"
assert_contains "$WORK/status.err" "task 0: Exited with exit code 6"
