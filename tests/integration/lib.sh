# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers shared by the integration tests. Each test is a bash script run by
# ctest against the cluster of contrib/slurm/testcluster.sh (fixture
# "cluster"). Every wait is bounded.
set -euo pipefail

TESTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(cd "$TESTS_DIR/../.." && pwd)
eval "$("$SRC_DIR/contrib/slurm/testcluster.sh" env)"
PY=/usr/bin/python3 # Debian's, which has torch and mpi4py
# Debian builds torch 2.x without libuv, which torch.distributed's TCPStore
# uses by default from 2.4 on ("use_libuv was requested but PyTorch was build
# without libuv support"). Users of Debian's torch export the same
# (docs/ddp.md); torch 1.13 ignores it. srun and sbatch pass it to the tasks.
export USE_LIBUV=0

# torchrun's own rendezvous does not read USE_LIBUV: on a torch without libuv
# the tests that run torchrun load torch_compat/sitecustomize.py, which makes
# it pass use_libuv=False and changes nothing on other builds.
use_torchrun_compat() {
	mkdir -p "$WORK/torch_compat"
	cp "$TESTS_DIR/torch_compat/sitecustomize.py" "$WORK/torch_compat/"
	export PYTHONPATH=$WORK/torch_compat${PYTHONPATH:+:$PYTHONPATH}
}

# The --mpi plugin that gives the tasks an exchange: pmix where this Slurm
# has it (Debian's 26.05 does not), else pmi2.
exchange_mpi() {
	if srun --mpi=list 2>&1 | grep -qw pmix; then
		echo pmix
	else
		echo pmi2
	fi
}

XMPI=${XMPI:-$(exchange_mpi)}

# A directory holding only the given tools (and srun, timeout), for a PATH
# on which the shim finds no Open MPI 5+ mpirun, as an MPICH module gives:
# mode mpi then allows native launches in a step without PMIx.
path_without_ompi() {
	local t
	mkdir -p "$WORK/bin"
	for t in srun timeout "$@"; do
		ln -sf "$(command -v "$t")" "$WORK/bin/$t"
	done
	echo "$WORK/bin"
}

# Writes an hccn.conf at $DIST_HCCN_CONF in every node's private /tmp: node
# K's NPU D has the IP 192.168.(100+D).K.
write_hccn_confs() {
	run_srun hccn_setup -N"$TC_NODES" --ntasks-per-node=1 bash -c '
		k=${SLURMD_NODENAME#tcn}
		for d in 0 1 2 3 4 5 6 7; do
			echo "address_$d=192.168.$((100 + d)).$k"
			echo "netmask_$d=255.255.255.0"
		done >'"$DIST_HCCN_CONF"
	[ "$RC" -eq 0 ] || fail "could not write the hccn.conf files"
}

# True when the cluster's Slurm is release $1 (e.g. 23.11) or later.
slurm_at_least() {
	local have
	have=$(sinfo -V | awk '{print $2}')
	[ "$(printf '%s\n%s\n' "$1" "$have" | sort -V | head -n 1)" = "$1" ]
}
TEST_NAME=$(basename "$0" .sh)
# Job files must be on a path every node sees: each node has its own /tmp,
# and the source or build tree may be under /tmp, so everything a job reads
# or writes lives under the cluster's directory.
WORK=$TC_DIR/work/$TEST_NAME
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"
cp "$TESTS_DIR/ddp_train.py" "$WORK/"
TRAIN=$WORK/ddp_train.py
# The plugin and shim the cluster runs (testcluster.sh copies them there).
SHIM=$TC_DIR/stage/dist-shim
PLUGIN=$TC_DIR/stage/spank_dist.so

fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

# srun with a bound, capturing stdout and stderr in $WORK/NAME.out/.err and
# the exit status in $RC.
run_srun() {
	local name=$1
	shift
	RC=0
	timeout 180 srun "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || RC=$?
}

# The container tests' images hold the file /slurm-dist-test-image. Writes
# $WORK/inside.sh, which runs PROGRAM... after checking that it runs in one.
write_inside_check() {
	printf '%s\n' '#!/bin/bash' \
		'[ -f /slurm-dist-test-image ] || { echo "not inside the image" >&2; exit 3; }' \
		'exec "$@"' >"$WORK/inside.sh"
	chmod +x "$WORK/inside.sh"
}

# Submits a batch job and waits for it to end; sets JOB and JOB_STATE.
run_sbatch() {
	local out=$1
	shift
	JOB=$(sbatch --parsable -o "$out" "$@") || fail "sbatch $* was refused"
	wait_job "$JOB"
}

# wait_job JOB [BOUND_S]: at most BOUND_S seconds (240).
wait_job() {
	local job=$1 bound=${2:-240}
	local deadline=$((SECONDS + bound))
	while squeue -h -j "$job" 2>/dev/null | grep -q .; do
		[ $SECONDS -lt $deadline ] || {
			scancel "$job"
			fail "job $job still running after $bound s"
		}
		sleep 1
	done
	JOB_STATE=$(scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
}

assert_contains() {
	grep -qF -- "$2" "$1" || {
		echo "--- $1:" >&2
		cat "$1" >&2
		fail "expected '$2' in $1"
	}
}

assert_not_contains() {
	if grep -qF -- "$2" "$1"; then
		echo "--- $1:" >&2
		cat "$1" >&2
		fail "did not expect '$2' in $1"
	fi
}

assert_count() {
	local n
	n=$(grep -c -- "$2" "$1" || true)
	[ "$n" -eq "$3" ] || {
		echo "--- $1:" >&2
		cat "$1" >&2
		fail "expected $3 lines matching '$2' in $1, got $n"
	}
}

# Bad input must never drain a node.
assert_no_node_drained() {
	local bad
	bad=$(sinfo -h -N -o '%N %T' | grep -Ev ' (idle|allocated|mixed|completing)$' || true)
	[ -z "$bad" ] || fail "nodes not healthy: $bad"
}

# Resumes a node a test drained on purpose and waits (bounded) until it is
# idle and answering again.
resume_node() {
	local deadline=$((SECONDS + 60))
	scontrol update nodename="$1" state=resume
	until [ "$(sinfo -h -n "$1" -o '%T')" = idle ]; do
		[ $SECONDS -lt $deadline ] || fail "$1 is not idle 60 s after resuming it"
		sleep 1
	done
}

# The DDP-OK lines of a run, checked: every rank once, one master for all,
# the master is tcn1's own address, and each node names its own interface.
assert_ddp_ok() {
	local file=$1 world=$2 r
	assert_count "$file" '^DDP-OK ' "$world"
	for ((r = 0; r < world; r++)); do
		assert_count "$file" "^DDP-OK rank=$r world=$world " 1
	done
	[ "$(grep '^DDP-OK ' "$file" | sed 's/.* master=\([^ ]*\).*/\1/' | sort -u | wc -l)" -eq 1 ] ||
		fail "ranks disagree on the master in $file"
	grep '^DDP-OK ' "$file" | grep -vq ' master=10\.77\.0\.1:24[0-9][0-9][0-9] ' &&
		fail "master is not tcn1's address 10.77.0.1 with a port in the site's 24000-24999 in $file"
	grep '^DDP-OK ' "$file" | while read -r line; do
		host=$(sed 's/.* host=\([^ ]*\).*/\1/' <<<"$line")
		ifname=$(sed 's/.* ifname=\([^ ]*\).*/\1/' <<<"$line")
		[ "$ifname" = "$(expected_ifname "$host")" ] ||
			fail "$host used interface '$ifname', expected $(expected_ifname "$host")"
	done
}

# Interface names as contrib/slurm/testcluster.sh gives them, per node:
# eth0, ens5, enp1s0, then again from eth0 (TC_NODES above 3).
expected_ifname() {
	local names=(eth0 ens5 enp1s0) k=${1#tcn}
	if [[ $k =~ ^[1-9][0-9]*$ ]] && [ "$1" = "tcn$k" ]; then
		echo "${names[$(((k - 1) % 3))]}"
	else
		echo "?"
	fi
}

# The project's version (CMakeLists.txt) and this Slurm's release (22.05).
project_version() {
	sed -n 's/^project(slurm-dist VERSION \([0-9.]*\).*/\1/p' "$SRC_DIR/CMakeLists.txt"
}
slurm_release() {
	sinfo -V | awk '{print $2}' | cut -d. -f1,2
}

# Restarts every node's slurmd (after a change to what plugstack.conf
# loads) and waits, bounded, until all are idle.
restart_all_slurmd() {
	local k deadline=$((SECONDS + 90))
	for ((k = 1; k <= TC_NODES; k++)); do
		"$SRC_DIR/contrib/slurm/testcluster.sh" restart-slurmd "$k" >/dev/null 2>&1 ||
			fail "slurmd of tcn$k did not start again"
	done
	until [ "$(sinfo -h -N -o '%T' | sort -u)" = idle ]; do
		[ $SECONDS -lt $deadline ] || fail "nodes not idle 90 s after restarting slurmd: $(sinfo -h -N -o '%N %T' | tr '\n' ' ')"
		sleep 1
	done
}

# Waits (at most LIMIT s) until job JOB has been requeued once and is
# pending, then starts its second attempt 10 s later instead of after
# slurmctld's hold of about two minutes (its begin time moved on by the
# requeue), which changes nothing the job sees. Not at once: Slurm 22.05's
# slurmd, asked within a second or two, can start it without its prolog's
# extern step, so without a job container (site_jobcontainer.sh).
release_requeued() {
	local job=$1 limit=$2 deadline
	deadline=$((SECONDS + limit))
	until [ "$(scontrol show job "$job" | sed -n 's/.*Restarts=\([0-9]*\).*/\1/p')" = 1 ] &&
		squeue -h -t PD -j "$job" | grep -q .; do
		[ $SECONDS -lt $deadline ] || { scancel "$job"; fail "job $job was not requeued within $limit s"; }
		sleep 1
	done
	sleep 10
	scontrol update JobId="$job" StartTime=now || fail "could not release the requeued job $job"
}
