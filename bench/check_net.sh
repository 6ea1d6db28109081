#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check_net.sh — what --dist-check=net adds to a step, as a ratio of the step
# with the check to the same step without it, on the local test cluster.
#
#   bench/check_net.sh
#
# Needs the cluster of contrib/slurm/testcluster.sh up with the plugin
# (bench/run-all.sh brings it up and down). Inside one allocation of 3 nodes,
# the wall time of each srun (start to exit) of
#   srun --mpi=X --dist-mode=ddp -N3 --ntasks-per-node=P /bin/true
# without and with --dist-check=net, and the bare step (no --dist-mode) for
# reference, interleaved, for P = 2 and P = BENCH_CHECK_WIDE (8). X is pmix
# where this Slurm has it, else pmi2.
# Variables: BENCH_CHECK_REPS (default 10), BENCH_CHECK_WARMUP (2),
#   BENCH_CHECK_WIDE (8), BENCH_RESULTS (see lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REPS=${BENCH_CHECK_REPS:-10}
WARMUP=${BENCH_CHECK_WARMUP:-2}
WIDE=${BENCH_CHECK_WIDE:-8}
bench_need_uint BENCH_CHECK_REPS "$REPS"
bench_need_uint BENCH_CHECK_WARMUP "$((WARMUP + 1))"
bench_need_uint BENCH_CHECK_WIDE "$WIDE"
NODES=3

bench_need_cluster
bench_build_tools
if srun --mpi=list 2>&1 | grep -qw pmix; then MPI=pmix; else MPI=pmi2; fi

if [ "${1:-}" = --inside ]; then
	for p in 2 "$WIDE"; do
		# The check must really run (and pass) before it is timed.
		out=$(timeout 60 srun --mpi="$MPI" --dist-mode=ddp --dist-check=net --dist-explain \
			-N"$NODES" --ntasks-per-node="$p" /bin/true 2>&1) ||
			bench_die "the checked step failed: $out"
		grep -q "network check: $NODES nodes reached" <<<"$out" ||
			bench_die "the check did not report itself: $out"
		geom=(--mpi="$MPI" -N"$NODES" --ntasks-per-node="$p")
		bench_time "$REPS" "$WARMUP" "bare$p" srun "${geom[@]}" /bin/true \
			::: "ddp$p" srun --dist-mode=ddp "${geom[@]}" /bin/true \
			::: "check$p" srun --dist-mode=ddp --dist-check=net "${geom[@]}" /bin/true
	done
	exit 0
fi

LIMIT_MIN=$((2 + (REPS + WARMUP) * 6 * 2 / 60))
echo "== --dist-check=net: $(nproc) cores, $NODES nodes x 2 and x $WIDE tasks, --mpi=$MPI, $REPS interleaved repetitions (+$WARMUP warm-up)"
OUT=$(BENCH_TOOLS=$BENCH_TOOLS timeout -k 10 $((LIMIT_MIN * 60 + 30)) \
	salloc -Q -t "$LIMIT_MIN" -N"$NODES" --ntasks-per-node="$WIDE" "$0" --inside)
awk '{ print "  raw: " $0 }' <<<"$OUT"
for p in 2 "$WIDE"; do
	bench_compare check_net "step $NODES x $p, --dist-check=net vs ddp without" "$OUT" "ddp$p" "check$p" ddp check
	bench_compare check_net "(reference) step $NODES x $p, ddp vs bare" "$OUT" "bare$p" "ddp$p" bare ddp
done
