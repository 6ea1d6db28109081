#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mpirun inside a --dist-mode job (issue 10): Open MPI starts its daemons
# with an inner srun (orted for Open MPI 4, prted for 5 and 6), which
# inherits the job's --dist-mode. The plugin leaves such daemon steps alone,
# so every rank sees one consistent contract: here none, as the batch script
# itself is not wrapped. Before, the ranks on the daemons' nodes saw the
# daemon step's RANK=0|1, WORLD_SIZE=2 and those on the first node nothing.
source "$(dirname "$0")/lib.sh"
mpicc -o "$WORK/mpi_env" "$TESTS_DIR/mpi_env.c" || fail "mpicc failed"
echo "mpi_in_job: $(slurmd -V); $(mpirun --version | head -n 1)"

cat >job.sh <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp -N 3 --ntasks-per-node=2
mpirun --allow-run-as-root -np 6 $WORK/mpi_env
JOB
run_sbatch "$WORK/job.out" job.sh
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/job.out" >&2; fail "job ended $JOB_STATE"; }
for r in 0 1 2 3 4 5; do
	assert_count "$WORK/job.out" "^MPI-ENV mpi=$r/6 host=tcn[123] RANK=- WORLD_SIZE=- LOCAL_RANK=- NODE_RANK=- MASTER_ADDR=- " 1
done
for n in tcn1 tcn2 tcn3; do assert_count "$WORK/job.out" "^MPI-ENV .* host=$n " 2; done

# The recognition alone, whatever the MPI: a step whose program is named
# like a launcher's daemon is not wrapped; the same program under another
# name is.
mkdir -p "$WORK/bin"
printf '#!/bin/bash\necho "DAEMON $(basename "$0") RANK=${RANK:--} SHIM=${DIST_SHIM_MODE:--}"\n' >"$WORK/bin/orted"
chmod +x "$WORK/bin/orted"
for name in prted prte hydra_pmi_proxy pmi_proxy notorted; do cp "$WORK/bin/orted" "$WORK/bin/$name"; done
for name in orted prted prte hydra_pmi_proxy pmi_proxy; do
	run_srun "$name" --dist-mode=ddp -N2 --ntasks-per-node=1 "$WORK/bin/$name"
	[ "$RC" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "srun $name exited $RC"; }
	assert_count "$WORK/$name.out" "^DAEMON $name RANK=- SHIM=-\$" 2
done
run_srun notorted --dist-mode=ddp -N2 --ntasks-per-node=1 "$WORK/bin/notorted"
[ "$RC" -eq 0 ] || { cat "$WORK/notorted.err" >&2; fail "srun notorted exited $RC"; }
assert_count "$WORK/notorted.out" '^DAEMON notorted RANK=[01] SHIM=-$' 2
assert_no_node_drained
