#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=mpi, native launch: every task an MPI rank wired up by PMIx,
# with real mpi4py and a C program across nodes that carry a docker0 bridge
# (Open MPI hangs on it unless told which network to use); the hostfiles and
# variables as every node sees them.
source "$(dirname "$0")/lib.sh"
cp "$TESTS_DIR/mpi_allreduce.py" "$WORK/"
mpicc -o "$WORK/mpi_hello" "$TESTS_DIR/mpi_hello.c" || fail "mpicc failed"

if [ "$XMPI" = pmix ]; then
	run_srun py --mpi=pmix --dist-mode=mpi -N3 --ntasks-per-node=2 $PY "$WORK/mpi_allreduce.py"
	[ "$RC" -eq 0 ] || { cat "$WORK/py.err" >&2; fail "mpi4py run exited $RC"; }
	for r in 0 1 2 3 4 5; do assert_count "$WORK/py.out" "^MPI-OK rank=$r size=6 " 1; done

	run_srun c --mpi=pmix --dist-mode=mpi -N2 --ntasks-per-node=2 "$WORK/mpi_hello"
	[ "$RC" -eq 0 ] || { cat "$WORK/c.err" >&2; fail "C MPI run exited $RC"; }
	assert_count "$WORK/c.out" '^C-MPI-OK rank=[0-3] size=4 ' 4
else
	# A Slurm without PMIx (Debian's 26.05) and Open MPI 6, which starts
	# ranks under srun only through PMIx: each rank would run alone as a
	# singleton. Refused on every task, whichever --mpi, before any starts.
	for mpi in pmi2 none; do
		run_srun "alone_$mpi" --mpi=$mpi --dist-mode=mpi -N3 --ntasks-per-node=2 \
			bash -c "touch $WORK/started.\$SLURM_PROCID; exec $PY $WORK/mpi_allreduce.py"
		[ "$RC" -ne 0 ] || fail "a native Open MPI 6 launch without PMIx (--mpi=$mpi) exited 0"
		assert_contains "$WORK/alone_$mpi.err" "each of the 6 ranks would run alone; launch with --mpi=pmix, or where Slurm has no PMIx plugin run mpirun in one task per node with --dist-launcher"
		assert_not_contains "$WORK/alone_$mpi.out" "MPI-OK"
		[ -z "$(ls "$WORK"/started.* 2>/dev/null)" ] || fail "a rank started without PMIx (--mpi=$mpi)"
	done
	# The hostfiles below are for an MPI the shim does not take for Open MPI
	# 5+: a PATH without that mpirun, as an MPICH module gives.
	files_path=$(path_without_ompi bash hostname paste stat dirname)
fi

# What every task sees: the same hostfiles on every node, private.
PATH=${files_path:-$PATH} run_srun files --mpi=$XMPI --dist-mode=mpi -N3 --ntasks-per-node=2 bash -c '
	f=$OMPI_MCA_orte_default_hostfile
	echo "$(hostname) $SLURM_LOCALID openmpi $(paste -sd" " "$f")"
	echo "$(hostname) $SLURM_LOCALID mpich $(paste -sd" " "$HYDRA_HOST_FILE")"
	echo "$(hostname) $SLURM_LOCALID modes $(stat -c "%a %u" "$(dirname "$f")" "$f" | paste -sd" ")"
	echo "$(hostname) $SLURM_LOCALID same $([ "$PRTE_MCA_prte_default_hostfile" = "$f" ] && [ "$I_MPI_HYDRA_HOST_FILE" = "$HYDRA_HOST_FILE" ] && echo yes)"
	echo "$(hostname) $SLURM_LOCALID vars $NODE_IP_SLOT_LIST $VC_WORKER_HOSTS $MA_NUM_HOSTS $OMPI_MCA_btl_tcp_if_include $HOROVOD_GLOO_IFACE"'
[ "$RC" -eq 0 ] || { cat "$WORK/files.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/files.out" ' openmpi tcn1 slots=2 tcn2 slots=2 tcn3 slots=2$' 6
assert_count "$WORK/files.out" ' mpich tcn1:2 tcn2:2 tcn3:2$' 6
assert_count "$WORK/files.out" " modes 700 $(id -u) 600 $(id -u)$" 6
assert_count "$WORK/files.out" ' same yes$' 6
assert_count "$WORK/files.out" ' vars 10.77.0.1:2,10.77.0.2:2,10.77.0.3:2 10.77.0.1,10.77.0.2,10.77.0.3 3 10.77.0.0/24 ' 6
for n in tcn1 tcn2 tcn3; do
	assert_count "$WORK/files.out" "^$n [01] vars .* $(expected_ifname $n)\$" 2
done
