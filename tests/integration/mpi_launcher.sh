#!/bin/bash
# --dist-mode=mpi --dist-launcher: one task per node, only the first runs the
# launcher; a real mpirun (which starts its daemons through Slurm itself)
# runs an mpi4py job across the nodes; every task exits with the launcher's
# status; other layouts and a missing --dist-mode are refused.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/mpi_allreduce.py" "$WORK/"

run_srun mpirun --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=1 bash -c "
	echo \$SLURM_PROCID >>$WORK/ran
	exec mpirun --allow-run-as-root -np 2 $PY $WORK/mpi_allreduce.py"
[ "$RC" -eq 0 ] || { cat "$WORK/mpirun.err" >&2; fail "launcher step exited $RC"; }
assert_count "$WORK/mpirun.out" '^MPI-OK rank=[01] size=2 host=tcn[12]$' 2
[ "$(cat "$WORK/ran")" = 0 ] || fail "the launcher ran on ranks '$(paste -sd, "$WORK/ran")', not on rank 0 only"

run_srun status --dist-mode=mpi --dist-launcher -N3 --ntasks-per-node=1 bash -c 'sleep 1; exit 3'
[ "$RC" -eq 3 ] || fail "srun exited $RC, expected the launcher's 3"
for t in 0 1 2; do assert_contains "$WORK/status.err" "task $t: Exited with exit code 3"; done

run_srun layout --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=2 bash -c "touch $WORK/started"
[ "$RC" -ne 0 ] || fail "two tasks per node with --dist-launcher exited 0"
assert_contains "$WORK/layout.err" "--dist-launcher needs one task per node (4 tasks on 2 nodes); use --ntasks-per-node=1"
[ ! -e "$WORK/started" ] || fail "a task started the command"

run_srun no_mode --dist-launcher -N1 bash -c "touch $WORK/started"
[ "$RC" -ne 0 ] || fail "--dist-launcher without --dist-mode exited 0"
assert_contains "$WORK/no_mode.err" "--dist-launcher needs --dist-mode (e.g. --dist-mode=mpi)"
[ ! -e "$WORK/started" ] || fail "a task started the command"
assert_no_node_drained
