#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A site that confines jobs with cgroups (issue 21): its own 3-node cluster
# with contrib/slurm/testcluster.sh's profile cgroup (proctrack/cgroup,
# task/cgroup,task/affinity, ConstrainCores and ConstrainDevices on cgroup
# v1), in new PID, network, mount and UTS namespaces like site_jobcontainer.
#
# It shows: every node's tasks are in that node's own cgroups
# (slurm_tcnK), a task may open only the fake GPU it was given, two tasks of
# a node are bound to different CPUs, --dist-mode=ddp trains across 3 nodes
# with the PyTorch client, the shim's binding composes with Slurm's
# (task/affinity's default, --cpu-bind, --gpu-bind, --gpus-per-task: the
# GPU a task is given is one it may open, its CPUs are within Slurm's), and
# every mode works, step after step, as under a job container.
#
# Needs the cgroup v1 controllers (cpuset, devices, freezer) mounted under
# /sys/fs/cgroup, as on this project's machine; elsewhere it says so and
# is skipped (exit 77). Only one cluster of this profile per machine at a
# time: the cgroup tree is the machine's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "${SITE_CG_INNER:-}" != 1 ]; then
	for c in cpuset devices freezer; do
		if [ "$(stat -f -c %T "/sys/fs/cgroup/$c" 2>/dev/null)" != cgroupfs ]; then
			echo "site_cgroup: SKIP: no cgroup v1 $c controller at /sys/fs/cgroup/$c"
			exit 77
		fi
	done
	[ -n "${TC_PLUGIN:-}" ] && [ -n "${TC_SHIM:-}" ] || {
		echo "FAIL: site_cgroup: TC_PLUGIN and TC_SHIM must name the build's plugin and shim" >&2
		exit 1
	}
	export TC_DIR=${TC_DIR:-/var/lib/slurm-dist-tc}-cgroup
	export SITE_CG_INNER=1 TC_PROFILE=cgroup TC_NODES=3
	# shellcheck disable=SC2016 # expanded by the inner shell
	exec unshare --pid --fork --net --mount --uts --propagation private -- bash -c '
		mount -t proc proc /proc
		mount -t tmpfs -o mode=0755 tmpfs /run
		ip link set lo up
		hostname localhost
		exec "$@"' inner "$0" "$@"
fi

tc=$here/../../contrib/slurm/testcluster.sh
TC_PLUGIN_ARGS=port_range=24000-24999 timeout 180 "$tc" up
trap '"$tc" down >/dev/null 2>&1 || true' EXIT
source "$here/lib.sh"

# Each node's tasks in its own cgroups.
run_srun cg -N3 --ntasks-per-node=1 bash -c 'echo "$SLURMD_NODENAME $(grep -E ":(freezer|cpuset|devices):" /proc/self/cgroup | cut -d: -f3 | paste -sd" ")"'
[ "$RC" -eq 0 ] || { cat "$WORK/cg.err" >&2; fail "a job under the cgroup profile failed ($RC)"; }
for k in 1 2 3; do
	grep -q "^tcn$k " "$WORK/cg.out" || fail "no line from tcn$k in $WORK/cg.out"
	line=$(grep "^tcn$k " "$WORK/cg.out")
	[ "$(tr ' ' '\n' <<<"${line#* }" | grep -c "^/slurm_tcn$k/uid_[0-9]*/job_[0-9]*/step_0")" -eq 3 ] ||
		fail "tcn$k's task is not in tcn$k's own freezer, cpuset and devices cgroups: $line"
done

# ConstrainDevices: of the node's 4 fake GPUs (c 240 0..3) a task given one
# is refused the other three by the devices cgroup (the one it has opens,
# or fails for want of a driver, but is not refused).
run_srun dev -N1 -n1 --gpus-per-task=1 bash -c '
	echo "CVD=$CUDA_VISIBLE_DEVICES"
	for g in 0 1 2 3; do
		if err=$( (: <"'"$TC_DIR"'/dev/$SLURMD_NODENAME/gpu$g") 2>&1); then echo "gpu$g open"
		elif grep -q "Operation not permitted" <<<"$err"; then echo "gpu$g denied"
		else echo "gpu$g other: $err"; fi
	done
	: </dev/null && echo "devnull open"'
[ "$RC" -eq 0 ] || { cat "$WORK/dev.err" >&2; fail "the GPU job failed ($RC)"; }
assert_contains "$WORK/dev.out" "CVD=0"
assert_count "$WORK/dev.out" '^gpu[0-3] denied$' 3
assert_contains "$WORK/dev.out" "devnull open"

# task/affinity: the two tasks of a node on different CPUs.
run_srun aff -N1 --ntasks-per-node=2 bash -c 'sed -n "s/^Cpus_allowed_list:\t//p" /proc/self/status'
[ "$RC" -eq 0 ] || { cat "$WORK/aff.err" >&2; fail "the affinity job failed ($RC)"; }
[ "$(sort -u "$WORK/aff.out" | wc -l)" -eq 2 ] || {
	cat "$WORK/aff.out" >&2
	fail "the two tasks of a node share their CPUs"
}

# ddp with the real PyTorch client.
run_srun train --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN"
[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "ddp under cgroups: srun exited $RC"; }
assert_ddp_ok "$WORK/train.out" 6

# Binding under task/cgroup,task/affinity (docs/binding.md, "Slurm's
# binding"). Each step once bare (bind_probe.sh alone) and once wrapped with
# --dist-explain; bind_agree.py checks that each task's GPU (the shim's
# choice, an entry of CUDA_VISIBLE_DEVICES) is a device it may open, that
# the node's tasks got distinct ones, and that its CPUs are those it
# explained, within what Slurm gave the same task in the bare step.
cp "$TESTS_DIR/bind_probe.sh" "$TESTS_DIR/bind_agree.py" "$WORK/"
probe=(bash "$WORK/bind_probe.sh" "$TC_DIR/dev")
agree() { $PY "$WORK/bind_agree.py" "$@" >"$WORK/agree.out" 2>&1 || { cat "$WORK/agree.out" >&2; fail "binding of $1: see above"; }; }
bind_case() { # NAME SRUN-ARGS...: the bare step, then the wrapped one
	local name=$1
	shift
	run_srun "$name.bare" "$@" "${probe[@]}"
	[ "$RC" -eq 0 ] || { cat "$WORK/$name.bare.err" >&2; fail "bare step $name exited $RC"; }
	run_srun "$name" --mpi="$XMPI" --dist-mode=ddp --dist-explain "$@" "${probe[@]}"
	[ "$RC" -eq 0 ] || { cat "$WORK/$name.err" >&2; fail "step $name exited $RC"; }
}
g=(-N3 --ntasks-per-node=2)
# Slurm's own binding only (task/affinity's default): the shim binds within
# it; each task the LOCAL_RANKth GPU of the node's two, both openable.
bind_case bdef "${g[@]}" --gpus-per-node=2
agree "$WORK/bdef.out" "$WORK/bdef.err" --within "$WORK/bdef.bare.out" --physical "0=0;1=1"
assert_not_contains "$WORK/bdef.err" "given:"
assert_not_contains "$WORK/bdef.err" "Slurm binds GPUs"
# --gpus-per-task: each task sees and may open only its own GPU, as device 0.
bind_case bpt "${g[@]}" --gpus-per-task=1
agree "$WORK/bpt.out" "$WORK/bpt.err" --within "$WORK/bpt.bare.out"
assert_count "$WORK/bpt.out" '^PROBE tcn[1-3] [01] 0 [0-3] ' 6
assert_not_contains "$WORK/bpt.err" "Slurm binds GPUs"
# --gpu-bind: Slurm's choice stands (local rank 0 on the node's second GPU),
# not the shim's LOCAL_RANK order, and rank 0 says so once.
bind_case bgpu "${g[@]}" --gpus-per-node=2 --gpu-bind=map_gpu:1,0
agree "$WORK/bgpu.out" "$WORK/bgpu.err" --within "$WORK/bgpu.bare.out" --physical "0=1;1=0"
assert_count "$WORK/bgpu.err" "^dist-shim: Slurm binds GPUs to tasks (map_gpu:1,0): each task's GPU is the first of those it sees (device 0)$" 1
# --cpu-bind: each task keeps exactly the CPUs Slurm bound it to (with
# map_cpu:1,0 local rank 0 on CPU 1), and rank 0 says so once.
bind_case bcpu "${g[@]}" --cpu-bind=map_cpu:1,0
agree "$WORK/bcpu.out" "$WORK/bcpu.err" --cpus "0=1;1=0"
assert_count "$WORK/bcpu.err" "^dist-shim: --cpu-bind given: each task keeps the CPUs Slurm bound it to$" 1
# --cpu-bind=none: Slurm binds no task, and neither does the shim (without
# it, the shim would share the node's CPUs out between its two tasks).
bind_case bnone "${g[@]}" --cpu-bind=none
agree "$WORK/bnone.out" "$WORK/bnone.err" --same "$WORK/bnone.bare.out"
assert_count "$WORK/bnone.out" "^PROBE tcn[1-3] [01] " 6
assert_count "$WORK/bnone.err" "^dist-shim: --cpu-bind given: " 1
echo "site_cgroup: binding composes with task/affinity and ConstrainDevices"

# Every mode, step after step in one allocation, and a requeued job, as
# under a job container (site_steps.sh).
# shellcheck disable=SC2034 # read by site_steps.sh
SITE_WHERE="under cgroups"
source "$here/site_steps.sh"
run_steps all
check_mode_steps
check_dirs_removed
echo "site_cgroup: every mode works under cgroups; no step left its directory"
check_requeue
echo "site_cgroup: a requeued job's second attempt has its own step directory"
assert_no_node_drained
echo "site_cgroup: OK"
