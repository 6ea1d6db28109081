#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A container runtime started by the step (issue 22), Charliecloud's ch-run
# from Debian: `srun --dist-mode=... ch-run IMAGE -- PROGRAM`. The shim runs
# on the node, exports the contract and execs the runtime, which passes the
# environment on and binds the node's /tmp (the step's directory) inside.
# Each mode's real client runs inside: ddp trains, mpi4py allreduces (native
# where Slurm has PMIx, and mpirun's ranks in the launcher form), ascend's
# rank table is read and checked. Every program checks first that it runs
# in the image (a file only the image has).
#
# The image is a root of its own whose /usr is the node's, bound by ch-run:
# the same python3, torch and mpi4py as the node's, without building an
# image of a few hundred MB per release that the test would not look into.
source "$(dirname "$0")/lib.sh"
command -v ch-run >/dev/null || fail "ch-run not found (charliecloud-runtime: contrib/install-deps.sh)"
export USER=${USER:-$(id -un)} # ch-run refuses to start without it
cp "$TESTS_DIR/mpi_where.py" "$TESTS_DIR/ascend_check.py" "$WORK/"

img=$WORK/img
mkdir -p "$img"/{usr,etc/alternatives,tmp,proc,dev,sys,home,root,var,run,mnt} "$img$WORK"
for d in bin lib lib64 sbin; do ln -sfn "usr/$d" "$img/$d"; done
touch "$img"/etc/{passwd,group,hosts,resolv.conf,ld.so.cache}
echo "the test image" >"$img/slurm-dist-test-image"
# The node's libraries (Debian's BLAS is found through /etc/alternatives)
# and the test's directory.
binds=(-b /usr -b /etc/alternatives -b /etc/ld.so.cache -b "$WORK")
ch=(ch-run "${binds[@]}" "$img" --)
# Runs PROGRAM... inside the image, after checking that it is inside.
write_inside_check
inside=$WORK/inside.sh

# ddp: PyTorch DDP over gloo, 3 nodes x 2 tasks, every rank inside.
run_srun ddp --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=2 "${ch[@]}" "$inside" "$PY" "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/ddp.err" >&2; fail "ddp in ch-run exited $RC"; }
assert_ddp_ok "$WORK/ddp.out" 6

# mpi, launcher form: mpirun on the node starts each rank in ch-run, which
# reaches mpirun's daemon through the node's /tmp.
run_srun launcher --mpi=none --dist-mode=mpi --dist-launcher -N3 --ntasks-per-node=1 \
	--gpus-per-node=2 bash -c "exec mpirun --allow-run-as-root -np \$GPU_NUM ${ch[*]} $inside $PY $WORK/mpi_where.py"
[ "$RC" -eq 0 ] || { cat "$WORK/launcher.err" >&2; fail "mpirun of ch-run ranks exited $RC"; }
for k in 1 2 3; do assert_count "$WORK/launcher.out" "^RANK-AT [0-5]/6 tcn$k$" 2; done

# mpi, native: each task's MPI_Init reaches Slurm's PMIx server from inside
# (only where Slurm has PMIx: mpi_native.sh says why not on 26.05). Not on
# 22.05: there MPI programs in ch-run under Slurm's PMIx hang in about one
# run in three, with or without this plugin (docs/containers.md).
if [ "$XMPI" = pmix ] && slurm_at_least 24.11; then
	run_srun native --mpi=pmix --dist-mode=mpi -N3 --ntasks-per-node=2 "${ch[@]}" "$inside" "$PY" "$WORK/mpi_where.py"
	[ "$RC" -eq 0 ] || { cat "$WORK/native.err" >&2; fail "native mpi in ch-run exited $RC"; }
	for k in 1 2 3; do assert_count "$WORK/native.out" "^RANK-AT [0-5]/6 tcn$k$" 2; done
fi

# ascend: the rank table, in the step's directory under the node's /tmp,
# read inside and checked against the node's hccn.conf.
export DIST_HCCN_CONF=/tmp/dist-test-hccn.conf
write_hccn_confs
run_srun ascend --mpi="$XMPI" --dist-mode=ascend --dist-explain -N3 --ntasks-per-node=2 "${ch[@]}" "$inside" "$PY" "$WORK/ascend_check.py"
[ "$RC" -eq 0 ] || { cat "$WORK/ascend.err" >&2; fail "ascend in ch-run exited $RC"; }
# --dist-explain says which container path the step took, once.
assert_count "$WORK/ascend.err" "^dist-shim: container: ch-run started by the step: the contract in its environment; the node's /tmp, with the step's directory$" 1
for k in 1 2 3; do
	assert_count "$WORK/ascend.out" "^ASC-OK rank=[0-5] server=10\.77\.0\.$k device=[01] ip=192\.168\.10[01]\.$k host=tcn$k$" 2
done
# Told to drop the contract's variables, the runtime would start every task
# alone: refused before it starts, one line, nothing started. Told to give
# the program a /tmp of its own, it would hide the step's files (mode
# ascend's rank table; mode mpi's hostfiles alike, but on 26.05 mode mpi
# without PMIx is refused for another reason first): refused there, and let
# be in mode ddp, which has none to read.
run_srun dropped --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=1 ch-run --unset-env='*' \
	"${binds[@]}" "$img" -- bash -c "touch $WORK/started.dropped"
[ "$RC" -ne 0 ] || fail "ch-run --unset-env='*' exited 0"
assert_contains "$WORK/dropped.err" "ch-run --unset-env=* would start the program without the contract (MASTER_ADDR and the rest)"
[ "$(grep -c 'without the contract' "$WORK/dropped.err")" -eq 1 ] || fail "not one line: $(cat "$WORK/dropped.err")"
[ ! -e "$WORK/started.dropped" ] || fail "a task started without the contract"
run_srun hidden --mpi="$XMPI" --dist-mode=ascend -N3 --ntasks-per-node=1 ch-run -t "${binds[@]}" \
	"$img" -- bash -c "touch $WORK/started.hidden"
[ "$RC" -ne 0 ] || fail "ch-run -t in mode ascend exited 0"
assert_contains "$WORK/hidden.err" "ch-run -t gives the program a /tmp of its own, without the step's directory /tmp/slurm-dist.job"
[ ! -e "$WORK/started.hidden" ] || fail "a task started without the step's files"
# shellcheck disable=SC2016 # expanded inside
run_srun private --mpi="$XMPI" --dist-mode=ddp --dist-explain -N3 --ntasks-per-node=1 ch-run -t "${binds[@]}" \
	"$img" -- "$inside" bash -c 'echo "PRIVATE $RANK/$WORLD_SIZE $MASTER_ADDR $(ls /tmp | wc -l)"'
[ "$RC" -eq 0 ] || { cat "$WORK/private.err" >&2; fail "ch-run -t in mode ddp exited $RC"; }
assert_count "$WORK/private.out" '^PRIVATE [0-2]/3 10\.77\.0\.1 0$' 3
assert_count "$WORK/private.err" '^dist-shim: container: ch-run started by the step: the contract in its environment; a /tmp of its own (this mode writes no files for the program)$' 1
run_srun plain --mpi="$XMPI" --dist-mode=ddp --dist-explain -N1 true
[ "$RC" -eq 0 ] || { cat "$WORK/plain.err" >&2; fail "a plain step exited $RC"; }
assert_count "$WORK/plain.err" '^dist-shim: container: none: the program runs on the node' 1
assert_no_node_drained
