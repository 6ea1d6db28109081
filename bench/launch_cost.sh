#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# launch_cost.sh — issue 12's table: what --dist-mode=ddp costs a whole srun
# step at real task counts, against the bare step and against the least any
# PMIx client costs (bench/pmixmin.c: PMIx_Init only), binding on and off.
#
#   bench/launch_cost.sh
#
# Needs the cluster of contrib/slurm/testcluster.sh up with the plugin
# (bench/run-all.sh brings it up and down). In one allocation of 3 nodes
# (--overcommit: the test nodes claim 8 CPUs), for P = 2 and P = 24 tasks a
# node, the wall time of each srun (start to exit, /bin/true), interleaved:
#   bare_pmix   srun --mpi=pmix                      (when Slurm has PMIx)
#   floor       srun --mpi=pmix pmixmin init /bin/true
#   put_fence   srun --mpi=pmix pmixmin put /bin/true (PMIx_Init, one put and
#               one collecting fence: what the shim's one exchange must cost)
#   ddp_pmix    srun --mpi=pmix --dist-mode=ddp
#   ddp_pmix_nb srun --mpi=pmix --dist-mode=ddp --dist-bind=none
#   bare_none   srun --mpi=none
#   hop_none    srun --mpi=none hop /bin/true        (a 1-line exec wrapper: the
#               least any wrapper of the task costs; needs a C compiler)
#   ddp_none    srun --mpi=none --dist-mode=ddp
#   ddp_none_nb srun --mpi=none --dist-mode=ddp --dist-bind=none
# Variables: BENCH_COST_REPS (default 5), BENCH_COST_WARMUP (1),
#   BENCH_COST_WIDE (24), BENCH_RESULTS (see lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REPS=${BENCH_COST_REPS:-5}
WARMUP=${BENCH_COST_WARMUP:-1}
WIDE=${BENCH_COST_WIDE:-24}
bench_need_uint BENCH_COST_REPS "$REPS"
bench_need_uint BENCH_COST_WARMUP "$((WARMUP + 1))"
bench_need_uint BENCH_COST_WIDE "$WIDE"
NODES=3

bench_need_cluster
bench_build_tools
HAVE_PMIX=0
if srun --mpi=list 2>&1 | grep -qw pmix; then HAVE_PMIX=1; fi

if [ "${1:-}" = --inside ]; then
	WORK=$2
	for p in 2 "$WIDE"; do
		g=(-O -N"$NODES" --ntasks-per-node="$p")
		cmds=(::: "bare_none$p" srun --mpi=none "${g[@]}" /bin/true)
		if [ -x "$WORK/hop" ]; then
			cmds+=(::: "hop_none$p" srun --mpi=none "${g[@]}" "$WORK/hop" /bin/true)
		fi
		cmds+=(
			::: "ddp_none$p" srun --mpi=none --dist-mode=ddp "${g[@]}" /bin/true
			::: "ddp_none_nb$p" srun --mpi=none --dist-mode=ddp --dist-bind=none "${g[@]}" /bin/true)
		if [ "$HAVE_PMIX" = 1 ]; then
			cmds+=(::: "bare_pmix$p" srun --mpi=pmix "${g[@]}" /bin/true
				::: "floor$p" srun --mpi=pmix "${g[@]}" "$WORK/pmixmin" init /bin/true
				::: "put_fence$p" srun --mpi=pmix "${g[@]}" "$WORK/pmixmin" put /bin/true
				::: "ddp_pmix$p" srun --mpi=pmix --dist-mode=ddp "${g[@]}" /bin/true
				::: "ddp_pmix_nb$p" srun --mpi=pmix --dist-mode=ddp --dist-bind=none "${g[@]}" /bin/true)
		fi
		bench_time "$REPS" "$WARMUP" "${cmds[@]:1}"
	done
	exit 0
fi

WORK=$TC_DIR/bench-cost.$$
mkdir -p "$WORK"
BENCH_CLEANUP+=("$WORK")
# The nodes cannot see BENCH_TOOLS (each has its own /tmp).
if [ "${BENCH_HAVE_CC:-0}" = 1 ]; then
	cp "$BENCH_TOOLS/hop" "$WORK/hop"
fi
if [ "$HAVE_PMIX" = 1 ]; then
	bench_build_pmixmin "$WORK"
fi
LIMIT_MIN=$((3 + (REPS + WARMUP) * 9 * 2 * 3 / 60))
echo "== launch cost: $(nproc) cores, $NODES nodes x 2 and x $WIDE tasks (overcommitted), $REPS interleaved repetitions (+$WARMUP warm-up)"
OUT=$(BENCH_TOOLS=$BENCH_TOOLS timeout -k 10 $((LIMIT_MIN * 60 + 30)) \
	salloc -Q -t "$LIMIT_MIN" -N"$NODES" --exclusive "$0" --inside "$WORK")
awk '{ print "  raw: " $0 }' <<<"$OUT"
for p in 2 "$WIDE"; do
	if [ "$HAVE_PMIX" = 1 ]; then
		bench_compare launch_cost "$NODES x $p, ddp --mpi=pmix vs PMIx_Init-only client" "$OUT" "floor$p" "ddp_pmix$p" floor ddp
		bench_compare launch_cost "$NODES x $p, ddp --mpi=pmix vs Init+put+fence client" "$OUT" "put_fence$p" "ddp_pmix$p" put_fence ddp
		bench_compare launch_cost "$NODES x $p, ddp --mpi=pmix vs bare" "$OUT" "bare_pmix$p" "ddp_pmix$p" bare ddp
		bench_compare launch_cost "$NODES x $p, ddp --mpi=pmix --dist-bind=none vs bare" "$OUT" "bare_pmix$p" "ddp_pmix_nb$p" bare ddp_nb
		bench_compare launch_cost "$NODES x $p, (floor) PMIx_Init-only client vs bare" "$OUT" "bare_pmix$p" "floor$p" bare floor
	fi
	bench_compare launch_cost "$NODES x $p, ddp --mpi=none vs bare" "$OUT" "bare_none$p" "ddp_none$p" bare ddp
	if grep -q "^hop_none$p " <<<"$OUT"; then
		bench_compare launch_cost "$NODES x $p, ddp --mpi=none vs one exec hop" "$OUT" "hop_none$p" "ddp_none$p" hop ddp
		bench_compare launch_cost "$NODES x $p, (floor) one exec hop vs bare" "$OUT" "bare_none$p" "hop_none$p" bare hop
	fi
	bench_compare launch_cost "$NODES x $p, ddp --mpi=none --dist-bind=none vs bare" "$OUT" "bare_none$p" "ddp_none_nb$p" bare ddp_nb
done
