#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A site that confines jobs with cgroups (issue 21): its own 3-node cluster
# with contrib/slurm/testcluster.sh's profile cgroup (proctrack/cgroup,
# task/cgroup,task/affinity, ConstrainCores and ConstrainDevices on cgroup
# v1), in new PID, network, mount and UTS namespaces like site_jobcontainer.
#
# It shows: every node's tasks are in that node's own cgroups
# (slurm_tcnK), a task may open only the fake GPU it was given, two tasks of
# a node are bound to different CPUs, and --dist-mode=ddp trains across 3
# nodes with the PyTorch client.
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
assert_no_node_drained
echo "site_cgroup: OK"
