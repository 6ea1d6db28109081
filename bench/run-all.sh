#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-all.sh — every benchmark of bench/, then one compact table of ratios
# (each wrapped launch over the bare launch it wraps, measured side by side).
#
#   bench/run-all.sh [BUILD_DIR]
#
# BUILD_DIR (default build/) must hold spank/spank_dist.so, shim/dist-shim and
# tools/dist-scale. Runs exec_hop.sh and scale.sh (no cluster), nodes.sh (its
# own clusters of 3 to 32 nodes, in namespaces of their own), then brings the
# local test cluster up with that plugin and shim (contrib/slurm/testcluster.sh
# up: a running test cluster is restarted, its state wiped), runs
# srun_step.sh, pmix_floor.sh, launch_cost.sh (3 x 2 and 3 x 24 tasks),
# rendezvous.sh and check_net.sh, and takes the cluster DOWN again however it
# ends. Needs root (the cluster).
# About 8 minutes on a 2-core machine with the defaults, of which about 2 for
# the scale simulation (scale.sh: BENCH_SCALE_NODES, BENCH_SCALE_REPS) and 3
# for launch_cost.sh, plus about 14 for nodes.sh (BENCH_NODES_SIZES,
# BENCH_NODES_REPS; its table and plot go to BENCH_NODES_OUT; the plot needs
# gnuplot-nox, which contrib/install-deps.sh leaves out).
#
# Repetitions (see each script): BENCH_REPS (exec hop, 200), BENCH_STEP_REPS
# (srun steps, 10), BENCH_PMIX_REPS (PMIx floor, 6), BENCH_COST_REPS (launch
# cost, 5), BENCH_RDV_REPS (rendezvous, 2), BENCH_CHECK_REPS
# (--dist-check=net, 10), BENCH_NODES_REPS (nodes, 5); BENCH_QUICK=1 sets
# them to 50, 3, 2, 2, 1, 3 and 2 for a smoke run (about 5 min; nodes.sh then
# runs 3 and 8 nodes only).
# BENCH_RESULTS=FILE keeps the raw rows.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BUILD=${1:-$SRC_DIR/build}
bench_need_build "$BUILD"
[ "$(id -u)" -eq 0 ] || bench_die "the test cluster needs root"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	export BENCH_REPS=${BENCH_REPS:-50} BENCH_STEP_REPS=${BENCH_STEP_REPS:-3} BENCH_CHECK_REPS=${BENCH_CHECK_REPS:-3}
	export BENCH_STEP_DIAG_REPS=${BENCH_STEP_DIAG_REPS:-2} BENCH_RDV_REPS=${BENCH_RDV_REPS:-1}
	export BENCH_PMIX_REPS=${BENCH_PMIX_REPS:-2} BENCH_COST_REPS=${BENCH_COST_REPS:-2}
	export BENCH_NODES_REPS=${BENCH_NODES_REPS:-2} BENCH_NODES_SIZES=${BENCH_NODES_SIZES:-3x2 8x2}
fi
TC=$SRC_DIR/contrib/slurm/testcluster.sh

if [ -z "$BENCH_RESULTS" ]; then
	BENCH_RESULTS=$(mktemp "${TMPDIR:-/tmp}/slurm-dist-bench-results.XXXXXX")
	BENCH_CLEANUP+=("$BENCH_RESULTS")
fi
: >"$BENCH_RESULTS"
export BENCH_RESULTS
# One build of the timing helper for all scripts.
bench_build_tools
export BENCH_TOOLS

cluster_down() {
	timeout 120 "$TC" down >/dev/null 2>&1 || echo "bench: warning: testcluster.sh down failed" >&2
}
trap 'cluster_down; bench_cleanup' EXIT

echo "== slurm-dist launch benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "== machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), kernel $(uname -r)"
echo "== build: $BUILD"
echo

"$BENCH_DIR/exec_hop.sh" "$SHIM_BUILD"
echo
"$BENCH_DIR/scale.sh" "$BUILD"
echo
# Before this script's cluster: its own clusters, in namespaces of their own.
# A size that fails (its table says which) does not stop the others.
nodes_rc=0
"$BENCH_DIR/nodes.sh" "$BUILD" || nodes_rc=$?
echo

echo "== bringing the test cluster up with $PLUGIN"
TC_PLUGIN=$PLUGIN TC_SHIM=$SHIM_BUILD timeout 300 "$TC" up 2>&1 | tail -1
eval "$("$TC" env)"
echo

"$BENCH_DIR/srun_step.sh"
echo
"$BENCH_DIR/pmix_floor.sh"
echo
"$BENCH_DIR/launch_cost.sh"
echo
"$BENCH_DIR/rendezvous.sh"
echo
"$BENCH_DIR/check_net.sh"
echo

echo "== summary: ratio = wrapped / bare (rendezvous: per-task / torchrun), medians, same run"
awk -F'\t' '
	BEGIN { printf "%-10s  %-55s  %-20s  %-26s  %7s  %4s\n", "bench", "what", "bare", "wrapped", "ratio", "reps" }
	{ printf "%-10s  %-55s  %-20s  %-26s  %6.2fx  %4d\n", $1, substr($2, 1, 55),
		sprintf("%s %.*f ms", $3, ($4 < 100 ? 2 : 0), $4), sprintf("%s %.*f ms", $5, ($6 < 100 ? 2 : 0), $6), $7, $8 }' "$BENCH_RESULTS"
echo
[ "$nodes_rc" -eq 0 ] || echo "bench: warning: nodes.sh failed (exit $nodes_rc): see its output above" >&2
echo "== taking the test cluster down"
