#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A container another SPANK plugin moves each task into in its task_init,
# as pyxis does (issue 22), tested with the tests' own such plugin
# (container_plugin/fake_container.c): it also imports an environment over
# the job's as pyxis and enroot's PyTorch hook do. Slurm then execs the
# task's command line inside, where the shim's path is not: the plugin
# carries the node's shim in (core/dist_carry.h) and the contract wins.
#   - listed before dist in plugstack.conf: found at dist's task_init and
#     carried; PyTorch DDP trains 3 x 2 in an image with the node's /usr;
#     in an image with nothing but a static program (no /usr, no libc)
#     ddp's variables, mode ascend's rank table and mode mpi's hostfile
#     are there;
#   - listed after dist: carried with carry_shim=always; without it the
#     task fails at Slurm's exec, nothing of the program runs.
source "$(dirname "$0")/lib.sh"
if [ -z "${FAKE_CONTAINER_SO:-}" ] || [ -z "${CONTRACT_CHECK:-}" ]; then
	fail "FAKE_CONTAINER_SO and CONTRACT_CHECK are set by ctest"
fi
good=$TC_DIR/plugstack.conf
# Named as the doctor knows container plugins (pyxis and its kind).
cp "$FAKE_CONTAINER_SO" "$WORK/pyxis_like.so"
cp "$TESTS_DIR/ascend_check.py" "$WORK/"
cp "$good" "$WORK/good.plugstack"
restore() { cp "$WORK/good.plugstack" "$good"; }
trap restore EXIT
fake="required $WORK/pyxis_like.so"

# An image of the node's /usr (python3, torch), the test's directory
# bound; the shim's directory (under TC_DIR) is not in it.
full=$WORK/full
mkdir -p "$full"/{usr,etc/alternatives,tmp,proc,dev,sys,root,var,run} "$full$WORK"
for d in bin lib lib64 sbin; do ln -sfn "usr/$d" "$full/$d"; done
touch "$full"/etc/{passwd,group,hosts,resolv.conf,ld.so.cache}
echo "the test image" >"$full/slurm-dist-test-image"
printf '%s\n' /usr /etc/alternatives /etc/ld.so.cache /etc/passwd /etc/group "$WORK" >"$full/.fake-binds"
# Runs PROGRAM... inside the image, after checking that it is inside.
write_inside_check
inside=$WORK/inside.sh
# An image with one static program and nothing else.
bare=$WORK/bare
mkdir -p "$bare"/{proc,sys,dev,tmp}
cp "$CONTRACT_CHECK" "$bare/check"
echo "the test image" >"$bare/slurm-dist-test-image"

# --- listed before dist: found and carried --------------------------------
{ echo "$fake"; cat "$WORK/good.plugstack"; } >"$good"

run_srun ddp --mpi="$XMPI" --dist-mode=ddp --dist-explain -N3 --ntasks-per-node=2 \
	--fake-container="$full" "$inside" "$PY" "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/ddp.err" >&2; fail "ddp in the plugin's container exited $RC"; }
assert_ddp_ok "$WORK/ddp.out" 6
run_srun doctor_before -N1 -w tcn1 "$SHIM" --doctor
assert_contains "$WORK/doctor_before.out" "doctor: tcn1: OK   containers: $WORK/pyxis_like.so is listed before spank_dist.so: the shim is carried into its containers"
assert_count "$WORK/ddp.err" "^dist-shim: container: entered by a plugin before the task started (pyxis or alike): the node's shim carried in" 1
# The step's directories, made by the shims in the container's /tmp, are
# removed at the step's end in the container's namespace (bounded wait).
left=
for _ in $(seq 20); do
	left=$(find "$full.tmp" -maxdepth 2 -name 'slurm-dist.*' | head -n 3)
	[ -n "$left" ] || break
	sleep 0.5
done
[ -z "$left" ] || fail "step directories left in the container: $left"

# Nothing of the image but the static program: every task sees the
# contract, not the imported values, and no shim at the node's path.
run_srun bare_ddp --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=2 \
	--fake-container="$bare" /check "$SHIM"
[ "$RC" -eq 0 ] || { cat "$WORK/bare_ddp.err" >&2; fail "ddp in a bare image exited $RC"; }
port=$(sed -n 's/.* master=[^:]*:\([0-9]*\) .*/\1/p' "$WORK/bare_ddp.out" | sort -u)
[ "$(echo "$port" | wc -l)" -eq 1 ] || fail "not one MASTER_PORT: $port"
# The cluster's port_range, not enroot's (job id mod 4536 + 61000).
if [ "$port" -lt 24000 ] || [ "$port" -gt 24999 ]; then
	fail "MASTER_PORT $port is not the contract's"
fi
for k in 1 2 3; do
	assert_count "$WORK/bare_ddp.out" "^CHECK host=tcn$k image=yes usr=no shim=no rank=[0-5] world=6 local=[01] master=10\.77\.0\.1:$port ranktable=-1 hostfile=-1$" 2
done
assert_not_contains "$WORK/bare_ddp.out" "fake-enroot"

# ascend: the rank table is written by the shim inside, read inside.
export DIST_HCCN_CONF=/tmp/dist-test-hccn.conf
write_hccn_confs
printf '%s\n' /tmp/dist-test-hccn.conf >>"$full/.fake-binds"
run_srun ascend --mpi="$XMPI" --dist-mode=ascend -N3 --ntasks-per-node=2 \
	--fake-container="$full" "$inside" "$PY" "$WORK/ascend_check.py"
[ "$RC" -eq 0 ] || { cat "$WORK/ascend.err" >&2; fail "ascend in the plugin's container exited $RC"; }
for k in 1 2 3; do
	assert_count "$WORK/ascend.out" "^ASC-OK rank=[0-5] server=10\.77\.0\.$k device=[01] ip=192\.168\.10[01]\.$k host=tcn$k$" 2
done

# mpi: the hostfile, written inside, read inside (where Slurm has PMIx:
# mode mpi needs it without --dist-launcher).
if [ "$XMPI" = pmix ]; then
	run_srun bare_mpi --mpi=pmix --dist-mode=mpi -N3 --ntasks-per-node=2 \
		--fake-container="$bare" /check "$SHIM"
	[ "$RC" -eq 0 ] || { cat "$WORK/bare_mpi.err" >&2; fail "mpi in a bare image exited $RC"; }
	assert_count "$WORK/bare_mpi.out" "^CHECK host=tcn[1-3] image=yes usr=no shim=no .* hostfile=[1-9][0-9]*$" 6
fi

# --- listed after dist -----------------------------------------------------
{ cat "$WORK/good.plugstack"; echo "$fake"; } >"$good"
run_srun after_auto --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=1 \
	--fake-container="$bare" /check "$SHIM"
[ "$RC" -ne 0 ] || fail "listed after dist without carry_shim=always, the step exited 0"
assert_not_contains "$WORK/after_auto.out" "CHECK"
# The doctor says so, and what to do.
run_srun doctor_after -N1 -w tcn1 "$SHIM" --doctor
assert_contains "$WORK/doctor_after.out" "doctor: tcn1: WARN containers: $WORK/pyxis_like.so is listed after spank_dist.so in plugstack.conf: the tasks it moves into a container fail at Slurm's exec (the shim is not in the image); list spank_dist.so after it, or add carry_shim=always"
{ sed 's|$| carry_shim=always|' "$WORK/good.plugstack"; echo "$fake"; } >"$good"
run_srun after_always --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=1 \
	--fake-container="$bare" /check "$SHIM"
[ "$RC" -eq 0 ] || { cat "$WORK/after_always.err" >&2; fail "after dist with carry_shim=always exited $RC"; }
for k in 1 2 3; do
	assert_count "$WORK/after_always.out" "^CHECK host=tcn$k image=yes usr=no shim=no rank=[0-2] world=3 local=0 master=10\.77\.0\.1:[0-9]* ranktable=-1 hostfile=-1$" 1
done
# carry_shim=always on a step without a container: the carried shim runs
# on the node as the shim does.
# shellcheck disable=SC2016 # expanded in the task
run_srun always_plain --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=1 \
	bash -c 'echo "PLAIN $RANK/$WORLD_SIZE $MASTER_ADDR"'
[ "$RC" -eq 0 ] || { cat "$WORK/always_plain.err" >&2; fail "carry_shim=always without a container exited $RC"; }
assert_count "$WORK/always_plain.out" '^PLAIN [0-2]/3 10\.77\.0\.1$' 3
restore
assert_no_node_drained
