#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A program that calls MPI_Init after the shim used the step's PMIx for its
# one exchange (Init, Put, Commit, Fence, Get, Finalize), per release:
# - PMIx 5+ (Debian's Slurm 24.11, PMIx 5.0.7, Open MPI 5.0.7): it works, so
#   a ddp program may call MPI_Init, and mode mpi takes its node table from
#   the exchange (no slurmctld RPC);
# - PMIx 4 (Slurm 22.05, PMIx 4.2.2, Open MPI 4.1): MPI_Init fails, so mode
#   mpi leaves PMIx to the program and takes the addresses srun's plugin got
#   from slurmctld, once for the step;
# - no PMIx plugin (Debian's 26.05): nothing to share (srun_pmix checks srun
#   refuses --mpi=pmix there).
source "$(dirname "$0")/lib.sh"

if [ "$XMPI" != pmix ]; then
	echo "pmix_then_mpi: Slurm $(sinfo -V | awk '{print $2}') has no PMIx plugin: nothing to share"
	exit 0
fi
cat >"$WORK/mpi_sum.py" <<'PY'
import os, socket
from mpi4py import MPI
c = MPI.COMM_WORLD
total = c.allreduce(c.Get_rank() + 1)
print(f"MPI-OK rank={c.Get_rank()} size={c.Get_size()} sum={total} "
      f"env_rank={os.environ.get('RANK')} host={socket.gethostname()}", flush=True)
PY
mpicc -o "$WORK/mpi_hello" "$TESTS_DIR/mpi_hello.c" || fail "mpicc failed"

# The version the step's PMIx server announces to every task, which the
# shim's rule reads (dist_pmix_shareable): 5+ on 24.11, 4 on 22.05.
run_srun version --mpi=pmix -N1 -n1 printenv PMIX_VERSION
[ "$RC" -eq 0 ] || fail "printenv PMIX_VERSION exited $RC under --mpi=pmix"
if slurm_at_least 24.11; then
	grep -Eq '^([5-9]|[1-9][0-9])\.' "$WORK/version.out" || fail "PMIX_VERSION '$(cat "$WORK/version.out")' on Slurm 24.11+ is not 5 or later"
	shared=yes
else
	grep -q '^4\.' "$WORK/version.out" || fail "PMIX_VERSION '$(cat "$WORK/version.out")' on Slurm 22.05 is not 4"
	shared=no
fi

# How many node-information RPCs slurmctld received: it logs every RPC
# while its Protocol debug flag is on ("received opcode REQUEST_NODE_INFO",
# _SINGLE too, on 22.05 and 24.11).
node_rpcs() {
	grep -c 'received opcode REQUEST_NODE_INFO' "$TC_DIR/log/slurmctld.log" || true
}
# A ddp program's own MPI on nodes with a docker0 bridge needs its network
# named (mode mpi sets this itself).
export OMPI_MCA_btl_tcp_if_include=10.77.0.0/24

run_srun ddp_py --mpi=pmix --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$WORK/mpi_sum.py"
ddp_py_rc=$RC
run_srun ddp_c --mpi=pmix --dist-mode=ddp -N2 --ntasks-per-node=2 "$WORK/mpi_hello"
ddp_c_rc=$RC
scontrol setdebugflags +Protocol || fail "cannot turn on slurmctld's Protocol debug flag"
trap 'scontrol setdebugflags -Protocol' EXIT
rpcs_before=$(node_rpcs)
run_srun mpi_files --mpi=pmix --dist-mode=mpi -N3 --ntasks-per-node=2 bash -c \
	'echo "$(hostname) $SLURM_PROCID hostfile $(paste -sd" " "$OMPI_MCA_orte_default_hostfile")"'
mpi_files_rc=$RC
sleep 1
rpcs=$(($(node_rpcs) - rpcs_before))

if [ "$shared" = yes ]; then
	[ "$ddp_py_rc" -eq 0 ] || { cat "$WORK/ddp_py.err" >&2; fail "ddp + mpi4py under --mpi=pmix exited $ddp_py_rc"; }
	for r in 0 1 2 3 4 5; do
		assert_count "$WORK/ddp_py.out" "^MPI-OK rank=$r size=6 sum=21 env_rank=$r " 1
	done
	[ "$ddp_c_rc" -eq 0 ] || { cat "$WORK/ddp_c.err" >&2; fail "ddp + C MPI under --mpi=pmix exited $ddp_c_rc"; }
	assert_count "$WORK/ddp_c.out" '^C-MPI-OK rank=[0-3] size=4 ' 4
	[ "$mpi_files_rc" -eq 0 ] || { cat "$WORK/mpi_files.err" >&2; fail "mode mpi under --mpi=pmix exited $mpi_files_rc"; }
	assert_count "$WORK/mpi_files.out" ' hostfile tcn1 slots=2 tcn2 slots=2 tcn3 slots=2$' 6
	# srun's plugin asks once for the step (it cannot know the tasks' PMIx
	# will be shared); the tasks ask nothing.
	[ "$rpcs" -le 1 ] || fail "mode mpi's step sent slurmctld $rpcs node-information RPCs: the tasks asked for themselves"
	# And mode mpi's own program: MPI_Init after the shim's exchange.
	run_srun mpi_py --mpi=pmix --dist-mode=mpi -N3 --ntasks-per-node=2 $PY "$WORK/mpi_sum.py"
	[ "$RC" -eq 0 ] || { cat "$WORK/mpi_py.err" >&2; fail "mode mpi + mpi4py after the exchange exited $RC"; }
	for r in 0 1 2 3 4 5; do
		assert_count "$WORK/mpi_py.out" "^MPI-OK rank=$r size=6 sum=21 env_rank=$r " 1
	done
	# The launcher form after the exchange: rank 0's mpirun starts the ranks,
	# which see no one task's RANK.
	run_srun launcher --mpi=pmix --dist-mode=mpi --dist-launcher -N2 --ntasks-per-node=1 \
		mpirun --allow-run-as-root -np 2 --map-by node $PY "$WORK/mpi_sum.py"
	[ "$RC" -eq 0 ] || { cat "$WORK/launcher.err" >&2; fail "the launcher form under --mpi=pmix exited $RC"; }
	assert_count "$WORK/launcher.out" '^MPI-OK rank=[01] size=2 sum=3 env_rank=None host=tcn[1-3]$' 2
else
	# The documented limit: MPI_Init fails in every task after the shim's
	# PMIx exchange (it does not hang).
	[ "$ddp_py_rc" -ne 0 ] || fail "ddp + mpi4py under --mpi=pmix on PMIx 4 exited 0: the limit in docs/mpi.md is gone"
	assert_not_contains "$WORK/ddp_py.out" "MPI-OK"
	assert_contains "$WORK/ddp_py.err" "An error occurred in MPI_Init"
	[ "$ddp_c_rc" -ne 0 ] || fail "ddp + C MPI under --mpi=pmix on PMIx 4 exited 0: the limit in docs/mpi.md is gone"
	assert_not_contains "$WORK/ddp_c.out" "C-MPI-OK"
	assert_contains "$WORK/ddp_c.err" "An error occurred in MPI_Init"
	# Mode mpi leaves PMIx to the program; srun's plugin asks slurmctld
	# once for the whole step (ctld_rpcs.sh), not each task.
	[ "$mpi_files_rc" -eq 0 ] || { cat "$WORK/mpi_files.err" >&2; fail "mode mpi under --mpi=pmix exited $mpi_files_rc"; }
	assert_count "$WORK/mpi_files.out" ' hostfile tcn1 slots=2 tcn2 slots=2 tcn3 slots=2$' 6
	[ "$rpcs" -eq 1 ] || fail "mode mpi's 6 tasks on PMIx 4: slurmctld received $rpcs node-information RPCs, expected srun's one"
fi
