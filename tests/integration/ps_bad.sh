#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Impossible parameter-server requests are refused before anything starts.
source "$(dirname "$0")/lib.sh"
marker="touch $WORK/started"

run_srun too_many --mpi=$XMPI --dist-mode=ps --dist-ps=4 --dist-chief -N2 --ntasks-per-node=2 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "4 ps and a chief in 4 tasks exited 0"
assert_contains "$WORK/too_many.err" "4 tasks cannot hold 4 ps, a chief and at least one worker; start more tasks or lower --dist-ps"

run_srun no_pmix --dist-mode=ps -N2 --ntasks-per-node=1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "ps without PMIx exited 0"
assert_contains "$WORK/no_pmix.err" "--dist-mode=ps gathers what every node finds for it (ports, devices), which only PMIx or PMI2 can carry: launch with --mpi=pmix or --mpi=pmi2"

run_srun bad_n --mpi=$XMPI --dist-mode=ps --dist-ps=two -N1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "--dist-ps=two exited 0"
assert_contains "$WORK/bad_n.err" "invalid --dist-ps 'two': expected a number of parameter servers, 0 or more"

# Longer than the plugin's field: refused, not cut to a valid 000000000000001.
run_srun long_ps --mpi=$XMPI --dist-mode=ps --dist-ps=000000000000001X -N1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "--dist-ps=000000000000001X exited 0"
assert_contains "$WORK/long_ps.err" "--dist-ps: the value '000000000000001X' is too long (at most 15 characters)"

run_srun wrong_mode --mpi=$XMPI --dist-mode=ddp --dist-chief -N1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "--dist-chief with ddp exited 0"
assert_contains "$WORK/wrong_mode.err" "--dist-ps, --dist-chief and --dist-evaluator need --dist-mode=ps"

run_srun compat --mpi=$XMPI --dist-mode=ps --dist-compat=tione -N1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "--dist-compat=tione with ps exited 0"
assert_contains "$WORK/compat.err" "--dist-compat=tione has nothing for --dist-mode=ps"

run_srun no_sched --mpi=$XMPI --dist-mode=ps --dist-compat=mindspore -N2 --ntasks-per-node=1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "mindspore without a chief exited 0"
assert_contains "$WORK/no_sched.err" "--dist-compat=mindspore needs --dist-chief: MindSpore's scheduler runs as the chief"

[ ! -e "$WORK/started" ] || fail "a task started"
assert_no_node_drained
