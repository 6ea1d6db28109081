#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Failures under srun --mpi=pmi2: a program missing on one node stops every
# task at once, naming the cause; a task that never reaches the fence makes
# the others give up after the timeout and end the step (PMI2_Abort); mode
# mpi leaves PMI2 to the program.
source "$(dirname "$0")/lib.sh"

# /tmp is private to each node: put the program on tcn1 only.
prog=/tmp/dist-test-prog-pmi2-$$
run_srun setup -w tcn1 -N1 -n1 bash -c "printf '#!/bin/sh\ntouch $WORK/started-\$(hostname)\n' >$prog && chmod +x $prog"
[ "$RC" -eq 0 ] || fail "could not set up $prog on tcn1"
start=$SECONDS
run_srun partial --mpi=pmi2 --dist-mode=ddp -w tcn1,tcn2 -N2 --ntasks-per-node=2 "$prog"
took=$((SECONDS - start))
[ "$RC" -ne 0 ] || fail "srun exited 0 though tcn2 lacks the program"
assert_contains "$WORK/partial.err" "cannot execute '$prog'"
assert_contains "$WORK/partial.err" "rank 0: not starting: rank 2 on tcn2: cannot execute '$prog'"
[ ! -e "$WORK/started-tcn1" ] || fail "tcn1 started the program although its peer could not"
[ "$took" -lt 30 ] || fail "the step took $took s to end (the fence timeout is 120 s)"
run_srun cleanup -w tcn1 -N1 -n1 rm -f "$prog"

# A peer that never arrives: bounded by --timeout, then the step is aborted
# (rank 1 would otherwise start 40 s later).
start=$SECONDS
run_srun late --mpi=pmi2 -N2 -n2 bash -c "
	if [ \$SLURM_PROCID = 1 ]; then sleep 40; fi
	exec $SHIM --mode ddp --timeout 3 -- touch $WORK/started-\$SLURM_PROCID"
took=$((SECONDS - start))
[ "$RC" -ne 0 ] || fail "srun exited 0 although rank 1 never arrived"
assert_contains "$WORK/late.err" "rank 0: timed out after 3 s waiting for the step's other tasks"
[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a task ran the program: $(ls "$WORK")"
[ "$took" -lt 30 ] || fail "the step took $took s to end: the timed-out task did not abort it"

# Mode mpi: the program does its own PMI2, so the shim must not take it.
cc -o "$WORK/pmi2_hello" "$TESTS_DIR/pmi2_hello.c" -lpmi2 || fail "cannot build pmi2_hello"
# Its MPI is PMI2's (as MPICH's is), not an Open MPI 5+ mpirun on the PATH,
# which mode mpi would refuse without PMIx (mpi_native).
PATH=$(path_without_ompi) run_srun mpi --mpi=pmi2 --dist-mode=mpi -N2 --ntasks-per-node=2 "$WORK/pmi2_hello"
[ "$RC" -eq 0 ] || { cat "$WORK/mpi.err" >&2; fail "srun exited $RC"; }
for r in 0 1 2 3; do
	assert_count "$WORK/mpi.out" "^PMI2-OK rank=$r size=4 left=$(((r + 3) % 4))$" 1
done
assert_no_node_drained
