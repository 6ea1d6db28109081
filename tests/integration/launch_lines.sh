#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The platforms' MPI launch lines in the launcher form (issue 23): mpirun
# inside the allocation takes its slots from Slurm, and the step has one
# task per node; the launcher task's SLURM_TASKS_PER_NODE carries the
# hostfiles' slots instead (docs/mpi.md, "Slots inside Slurm"), so
# `mpirun -np $GPU_NUM` places a rank on every GPU. A line asking for more
# than the slots is refused with one line before mpirun starts.
source "$(dirname "$0")/lib.sh"
# Each rank's host, after a checked allreduce (mpi_where.py); the launcher
# prints its hostfile first (the file is in rank 0's node's step directory:
# only mpirun reads it).
cp "$TESTS_DIR/mpi_where.py" "$WORK/where.py"
show_then_run="sed 's/^/HOSTFILE /' \"\$OMPI_MCA_orte_default_hostfile\"; exec mpirun --allow-run-as-root"

# NP ranks on NODES nodes, each holding as many as its hostfile line's slots
# (the hostfile names the nodes as Slurm does).
check_placement() {
	local out=$1 np=$2 nodes=$3 host slots ranks
	assert_count "$out" "^RANK-AT [0-9]*/$np tcn[1-3]$" "$np"
	assert_count "$out" "^HOSTFILE tcn[1-3] slots=[0-9]*$" "$nodes"
	while read -r _ host slots; do
		ranks=$(grep -c "^RANK-AT [0-9]*/$np $host$" "$out" || true)
		[ "slots=$ranks" = "$slots" ] || fail "$host ran $ranks ranks, its hostfile line says $slots: $(cat "$out")"
	done < <(grep '^HOSTFILE ' "$out")
}

# `mpirun -np $GPU_NUM` (TI-ONE's line without its -H list: docs/mpi.md),
# under both wire-ups where the release has both (the exchange, Slurm's
# environment).
pmis=(none)
[ "$XMPI" = none ] || pmis+=("$XMPI")
for pmi in "${pmis[@]}"; do
	run_srun "gpus_$pmi" --mpi="$pmi" --dist-mode=mpi --dist-compat=tione --dist-launcher -N3 \
		--ntasks-per-node=1 --gpus-per-node=2 bash -c \
		"$show_then_run -np \$GPU_NUM $PY $WORK/where.py"
	[ "$RC" -eq 0 ] || { cat "$WORK/gpus_$pmi.err" >&2; fail "mpirun -np \$GPU_NUM (--mpi=$pmi) exited $RC"; }
	check_placement "$WORK/gpus_$pmi.out" 6 3
done

# The hostfile line: Open MPI inside the allocation accepts the file, whose
# hosts are the allocation's names, and takes its slots.
run_srun hostfile --mpi=none --dist-mode=mpi --dist-launcher -N3 --ntasks-per-node=1 \
	--gpus-per-node=2 bash -c \
	"$show_then_run -np 6 --hostfile \"\$OMPI_MCA_orte_default_hostfile\" $PY $WORK/where.py"
[ "$RC" -eq 0 ] || { cat "$WORK/hostfile.err" >&2; fail "mpirun --hostfile exited $RC"; }
check_placement "$WORK/hostfile.out" 6 3

# An order of the step's own (rank 0 on tcn3, Slurm's last node): the
# slots go to Open MPI in Slurm's order. (Uneven slots in such an order are
# the golden file mpi/launcher-uneven-slurm-order's: a job allocated with
# --gpus=N, which splits GPUs unevenly, leaves mpirun's daemons unable to
# start on this cluster, and without an exchange every node is taken to
# have the launcher node's GPUs.)
run_srun order --mpi="$XMPI" --dist-mode=mpi --dist-launcher -n3 \
	--gres=gpu:2 --distribution=arbitrary -w tcn3,tcn1,tcn2 bash -c \
	"echo SLOTS \$SLURM_TASKS_PER_NODE; $show_then_run -np 6 $PY $WORK/where.py"
[ "$RC" -eq 0 ] || { cat "$WORK/order.err" >&2; fail "the arbitrary order exited $RC"; }
assert_count "$WORK/order.out" '^SLOTS 2(x3)$' 1
check_placement "$WORK/order.out" 6 3
assert_count "$WORK/order.out" '^RANK-AT 0/6 tcn3$' 1

# A step of fewer nodes than its job (salloc -N3, srun -N2): mpirun's nodes
# are the step's, not the job's, and each has its GPUs' slots.
timeout 120 salloc -N3 --ntasks-per-node=2 --gpus-per-node=2 srun --mpi=none --dist-mode=mpi \
	--dist-launcher -N2 -n2 bash -c "$show_then_run -np \$GPU_NUM $PY $WORK/where.py" \
	>"$WORK/inner.out" 2>"$WORK/inner.err" || {
	cat "$WORK/inner.err" >&2
	fail "mpirun in a two-node step of a three-node job failed"
}
check_placement "$WORK/inner.out" 4 2
assert_count "$WORK/inner.out" "^HOSTFILE tcn[1-3] slots=2$" 2

# MPICH's mpiexec (Hydra, its Slurm bootstrap), with the same slots and
# with the MPICH form of the hostfile. Debian builds mpi4py for Open MPI
# only: the MPI program is C (mpi_hello.c: allreduce of the ranks, checked),
# built with MPICH's compiler. Hydra's proxies reach mpiexec through
# HYDRA_IFACE (the launcher node's interface): the test cluster's names do
# not resolve, and each node names its interface differently.
mpicc.mpich -o "$WORK/mpich_hello" "$TESTS_DIR/mpi_hello.c" || fail "mpicc.mpich failed"
as_rank_at='s|^C-MPI-OK rank=\([0-9]*\) size=\([0-9]*\) host=\(.*\)$|RANK-AT \1/\2 \3|'
# shellcheck disable=SC2016 # expanded by the launcher task
for line in '-n $GPU_NUM' '-n 6 -f $HYDRA_HOST_FILE'; do
	run_srun mpich --mpi=none --dist-mode=mpi --dist-compat=tione --dist-launcher -N3 \
		--ntasks-per-node=1 --gpus-per-node=2 bash -c \
		"sed 's/^/HOSTFILE /' \"\$OMPI_MCA_orte_default_hostfile\"; echo IFACE \$HYDRA_IFACE; exec mpiexec.mpich $line $WORK/mpich_hello"
	[ "$RC" -eq 0 ] || { cat "$WORK/mpich.err" >&2; fail "mpiexec.mpich $line exited $RC"; }
	assert_count "$WORK/mpich.out" '^IFACE [a-z0-9]*$' 1
	sed -i "$as_rank_at" "$WORK/mpich.out"
	check_placement "$WORK/mpich.out" 6 3
done

# More than the slots: one line, nothing started.
run_srun over --mpi=none --dist-mode=mpi --dist-launcher -N3 --ntasks-per-node=1 \
	--gpus-per-node=2 mpirun --allow-run-as-root -np 7 bash -c "touch $WORK/started"
[ "$RC" -ne 0 ] || fail "mpirun -np 7 on 6 slots exited 0"
assert_contains "$WORK/over.err" "mpirun -np 7 asks for more processes than the 6 slots of the step's 3 nodes"
[ "$(grep -c 'asks for more processes' "$WORK/over.err")" -eq 1 ] || fail "the refusal is not one line: $(cat "$WORK/over.err")"
assert_not_contains "$WORK/over.err" "There are not enough slots"
[ ! -e "$WORK/started" ] || fail "a rank started"
assert_no_node_drained
