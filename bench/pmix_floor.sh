#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmix_floor.sh — how much of what the shim costs under --mpi=pmix is PMIx
# itself: the shim against the least a PMIx client can do (bench/pmixmin.c),
# in steps of the same shape, every kind interleaved in one run.
#
#   bench/pmix_floor.sh
#
# Needs the cluster of contrib/slurm/testcluster.sh up with the plugin
# (bench/run-all.sh brings it up and down). Every step is
#   srun --mpi=pmix -N NODES --ntasks-per-node=PER_NODE bash -c \
#       'echo "RANK before $EPOCHREALTIME"; exec [WRAPPER] /bin/date "+RANK after %s.%N"'
# with WRAPPER one of:
#   bare        nothing
#   pmix_init   pmixmin init   (PMIx_Init + PMIx_Finalize)
#   pmix_put    pmixmin put    (+ one put, commit, one collecting fence: the
#               shape of the shim's exchange)
#   shim        dist-shim --mode ddp --
# Printed, as ratios: the srun wall time of each step kind to the bare step,
# and per task the time from exec to the program's start (median over tasks),
# the shim against pmix_put.
#
# Variables: BENCH_PMIX_REPS (default 6), BENCH_PMIX_NODES (3),
#   BENCH_PMIX_PER_NODE (2), CC, BENCH_RESULTS (see lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REPS=${BENCH_PMIX_REPS:-6}
NODES=${BENCH_PMIX_NODES:-3}
PER_NODE=${BENCH_PMIX_PER_NODE:-2}
bench_need_uint BENCH_PMIX_REPS "$REPS"
bench_need_uint BENCH_PMIX_NODES "$NODES"
bench_need_uint BENCH_PMIX_PER_NODE "$PER_NODE"
KINDS=(bare pmix_init pmix_put shim)

bench_need_cluster

# One step of KIND; prints the tasks' stamps, then "-- T0 T1" (srun's start
# and end).
step() {
	local kind=$1 t0 t1 out
	local -a wrap=()
	case $kind in
	pmix_init) wrap=("$WORK/pmixmin" init) ;;
	pmix_put) wrap=("$WORK/pmixmin" put) ;;
	shim) wrap=("$SHIM" --mode ddp --) ;;
	esac
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2016 # expanded by the task's bash
	out=$(timeout 60 srun --mpi=pmix -N"$NODES" --ntasks-per-node="$PER_NODE" bash -c \
		'echo "$SLURM_PROCID before $EPOCHREALTIME"; exec "$@" /bin/date "+$SLURM_PROCID after %s.%N"' \
		_ "${wrap[@]}") || bench_die "$kind: srun failed"
	t1=$EPOCHREALTIME
	printf '%s\n-- %s %s\n' "$out" "$t0" "$t1"
}

if [ "${1:-}" = --inside ]; then
	WORK=$2
	declare -A stamps=()
	for ((r = 0; r < REPS + 1; r++)); do # round 0 is a warm-up
		for ((i = 0; i < ${#KINDS[@]}; i++)); do
			kind=${KINDS[(i + r) % ${#KINDS[@]}]}
			out=$(step "$kind")
			if [ "$r" -gt 0 ]; then
				stamps[$kind]+=$out$'\n'
			fi
		done
	done
	for kind in "${KINDS[@]}"; do
		printf '%s' "${stamps[$kind]}" | awk -v kind="$kind" '
			function sort(a, n,   i, j, t) {
				for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
			}
			function line(label, a, n,   med) {
				sort(a, n)
				med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
				printf "%s median_ms=%.3f p10_ms=%.3f p90_ms=%.3f min_ms=%.3f reps=%d\n", label, med,
					a[int(0.1 * (n - 1) + 1.5)], a[int(0.9 * (n - 1) + 1.5)], a[1], n
			}
			$2 == "before" { b[$1] = $3 }
			$2 == "after" { h[++nh] = ($3 - b[$1]) * 1000 }
			$1 == "--" { w[++nw] = ($3 - $2) * 1000 }
			END { line(kind "_srun", w, nw); line(kind "_task", h, nh) }'
	done
	exit 0
fi

bench_build_tools
[ "$BENCH_HAVE_CC" = 1 ] || bench_die "pmix_floor.sh needs a C compiler for bench/pmixmin.c"
WORK=$TC_DIR/bench-pmix.$$
mkdir -p "$WORK"
BENCH_CLEANUP+=("$WORK")
bench_build_pmixmin "$WORK"

echo "== PMIx floor: $(nproc) cores, $NODES nodes x $PER_NODE tasks, --mpi=pmix, $REPS interleaved repetitions (+1 warm-up)"
LIMIT_MIN=$((2 + (REPS + 1) * ${#KINDS[@]} / 60))
OUT=$(timeout -k 10 $((LIMIT_MIN * 60 + 30)) salloc -Q -t "$LIMIT_MIN" -N"$NODES" \
	--ntasks-per-node="$PER_NODE" "$0" --inside "$WORK")
awk '{ print "  raw: " $0 }' <<<"$OUT"
bench_compare pmix_floor "step wall, PMIx_Init-only client" "$OUT" bare_srun pmix_init_srun bare "init-only"
bench_compare pmix_floor "step wall, Init+put+fence client" "$OUT" bare_srun pmix_put_srun bare "put+fence"
bench_compare pmix_floor "step wall, dist-shim --mode ddp" "$OUT" bare_srun shim_srun bare shim
bench_compare pmix_floor "per task exec->start, shim vs put+fence client" "$OUT" pmix_put_task shim_task \
	"put+fence" shim
awk -v b="$(bench_field "$OUT" bare_task median_ms)" -v i="$(bench_field "$OUT" pmix_init_task median_ms)" \
	-v p="$(bench_field "$OUT" pmix_put_task median_ms)" -v s="$(bench_field "$OUT" shim_task median_ms)" 'BEGIN {
	printf "  per task exec->start: bare %.1f ms, PMIx_Init only %.1f ms, Init+put+fence %.1f ms, shim %.1f ms\n", b, i, p, s
	if (s > b) printf "  minimal put+fence client over the shim, per-task time above bare: %.0f%% (100%%: the shim adds nothing PMIx does not)\n", 100 * (p - b) / (s - b) }'
