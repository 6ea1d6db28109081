#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scale.sh — scale simulation of the pure core: what one task of a large
# step costs to build (its environment and arguments, and the files its node
# writes: hostfiles, TF_CONFIG, the rank table) in every mode, alone and with
# every --dist-compat profile that applies, on synthetic steps of N nodes x 8
# tasks. No cluster, no root: it runs tools/dist-scale from a build tree.
#
#   bench/scale.sh [BUILD_DIR]
#
# BUILD_DIR (default build/) must hold tools/dist-scale. Prints one row per
# mode, profile, size and rank (rank 0 and an ordinary rank): median time of
# the environment and of the files, growth over the previous size divided by
# the growth in ranks (1.00 = linear), peak memory of one build (resident-set
# growth, KiB), the largest variable (flagged "!" past the 128 KiB a single
# exec string may have) and the largest file. Exits non-zero when any mode or
# profile fails at any size or gives a malformed output.
#
# Variables: BENCH_SCALE_NODES (default 2,256,2048,16384), BENCH_SCALE_PER_NODE
# (tasks a node, default 8), BENCH_SCALE_REPS (default: 21 up to 2,048 ranks,
# 9 up to 16,384, 5 beyond); BENCH_QUICK=1: nodes 2,256,2048 and 3 reps.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

BUILD=${1:-$SRC_DIR/build}
SCALE=$BUILD/tools/dist-scale
[ -x "$SCALE" ] || bench_die "no $SCALE (cmake -S $SRC_DIR -B $BUILD && cmake --build $BUILD)"
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	NODES=${BENCH_SCALE_NODES:-2,256,2048}
	REPS=${BENCH_SCALE_REPS:-3}
else
	NODES=${BENCH_SCALE_NODES:-2,256,2048,16384}
	REPS=${BENCH_SCALE_REPS:-}
fi
PER_NODE=${BENCH_SCALE_PER_NODE:-8}
bench_need_uint BENCH_SCALE_PER_NODE "$PER_NODE"
args=(--nodes "$NODES" --tasks-per-node "$PER_NODE")
if [ -n "$REPS" ]; then
	bench_need_uint BENCH_SCALE_REPS "$REPS"
	args+=(--reps "$REPS")
fi

echo "== scale simulation of the core ($SCALE ${args[*]})"
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$SCALE" "${args[@]}"
