#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=mpi --dist-launcher: one task per node, only the first runs the
# launcher; a real mpirun (which starts its daemons through Slurm itself)
# runs an mpi4py job across the nodes; every task exits with the launcher's
# status; the launcher's processes see no one task's rank; other layouts and
# a missing --dist-mode are refused.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/mpi_allreduce.py" "$WORK/"

run_srun mpirun --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=1 bash -c "
	echo \$SLURM_PROCID >>$WORK/ran
	exec mpirun --allow-run-as-root -np 2 $PY $WORK/mpi_allreduce.py"
[ "$RC" -eq 0 ] || { cat "$WORK/mpirun.err" >&2; fail "launcher step exited $RC"; }
assert_count "$WORK/mpirun.out" '^MPI-OK rank=[01] size=2 host=tcn[1-3]$' 2
[ "$(cat "$WORK/ran")" = 0 ] || fail "the launcher ran on ranks '$(paste -sd, "$WORK/ran")', not on rank 0 only"

# What the launcher's processes see (issue 10): only what holds for all of
# them. Before, every MPI rank found the launcher task's RANK=0 and its
# node's interface name; now no rank sees a RANK, WORLD_SIZE, LOCAL_RANK,
# NODE_RANK or interface name, and every rank the same master and hostfile,
# on the launcher's node and on the nodes mpirun reaches through srun. With
# --mpi=pmi2 the launcher task's own PMI_RANK must not reach them either.
mpicc -o "$WORK/mpi_env" "$TESTS_DIR/mpi_env.c" || fail "mpicc failed"
for pmi in none pmi2; do
	run_srun "env_$pmi" --mpi=$pmi --dist-mode=mpi --dist-launcher -N3 --ntasks-per-node=1 \
		mpirun --allow-run-as-root -np 3 --map-by node "$WORK/mpi_env"
	[ "$RC" -eq 0 ] || { cat "$WORK/env_$pmi.err" >&2; fail "launcher step (--mpi=$pmi) exited $RC"; }
	for r in 0 1 2; do
		assert_count "$WORK/env_$pmi.out" "^MPI-ENV mpi=$r/3 host=tcn$((r + 1)) RANK=- WORLD_SIZE=- LOCAL_RANK=- NODE_RANK=- MASTER_ADDR=10.77.0.1 PMI_RANK=- GLOO_SOCKET_IFNAME=- HOSTFILE=/" 1
	done
	[ "$(sed -n 's/.* HOSTFILE=//p' "$WORK/env_$pmi.out" | sort -u | wc -l)" -eq 1 ] ||
		fail "the ranks disagree on the hostfile (--mpi=$pmi)"
done

# The launcher's network under the names this Open MPI reads (docs/mpi.md):
# 4 (ORTE) oob_tcp_if_include; 5 and 6 (PRRTE) PRTE_MCA_prte_if_include and
# not the old name, which 6 answers with a deprecation box on every rank.
ompi_major=$(mpirun --version | sed -n '1s/.* \([0-9]*\)\.[0-9.a-z]*$/\1/p')
run_srun names --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=1 bash -c \
	'echo "NAMES oob=${OMPI_MCA_oob_tcp_if_include:--} prte=${PRTE_MCA_prte_if_include:--} btl=${OMPI_MCA_btl_tcp_if_include:--}"'
[ "$RC" -eq 0 ] || { cat "$WORK/names.err" >&2; fail "launcher step exited $RC"; }
case $ompi_major in
4) assert_count "$WORK/names.out" '^NAMES oob=10.77.0.0/24 prte=- btl=10.77.0.0/24$' 1 ;;
5 | 6) assert_count "$WORK/names.out" '^NAMES oob=- prte=10.77.0.0/24 btl=10.77.0.0/24$' 1 ;;
*) fail "unexpected Open MPI '$(mpirun --version | head -n 1)'" ;;
esac
for pmi in none pmi2; do assert_not_contains "$WORK/env_$pmi.err" "deprecated"; done

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
