#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rendezvous.sh — time to a completed PyTorch gloo init_process_group plus one
# barrier, 2 nodes x 2 ranks, for the two launch forms --dist-mode=ddp offers:
#   per-task  srun --mpi=pmix --dist-mode=ddp -N2 --ntasks-per-node=2 python3 prog.py
#             (the shim's one PMIx fence is the only rendezvous before the
#             program's own TCPStore)
#   torchrun  srun --dist-mode=ddp -N2 -n2 --ntasks-per-node=1 \
#                 python3 -m torch.distributed.run --nproc_per_node=2 prog.py
#             (torchrun's agents do their own rendezvous round, then start the
#             workers)
# printed as the ratio per-task / torchrun: the launch the shim makes possible
# against the one it replaces. Both measured in one run, repetitions alternated.
#
#   bench/rendezvous.sh
#
# Needs the cluster of contrib/slurm/testcluster.sh up with the plugin
# (bench/run-all.sh brings it up and down). prog.py is bench/rdv_prog.py,
# copied under $TC_DIR (every node sees it). Per repetition:
#   to barrier   from just before srun starts to the LAST rank leaving the
#                barrier (ranks report wall-clock times; every node of the
#                test cluster shares the host's clock)
#   srun wall    srun start to srun exit (adds teardown)
#   proc->barrier  per rank, from its process's creation to after the barrier
#                (per-task: the task, shim included; torchrun: the worker,
#                which starts only after torchrun's start-up and rendezvous)
# Debian's torch 1.13 torchrun needs PET_REDIRECTS=9:1 PET_TEE=9:1 (else it
# crashes at start); set for the torchrun form only.
#
# Variables: BENCH_RDV_REPS (default 2; every torchrun repetition takes ~40 s
#   on the test cluster, see docs/performance.md), BENCH_RDV_RES_OPTIONS
#   (default empty: RES_OPTIONS given to both forms, e.g. "timeout:1 attempts:1"
#   shortens torchrun's exit, which resolves the unresolvable node names),
#   BENCH_RESULTS (see lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REPS=${BENCH_RDV_REPS:-2}
bench_need_uint BENCH_RDV_REPS "$REPS"
RES_OPTS=${BENCH_RDV_RES_OPTIONS:-}
PY=/usr/bin/python3
NODES=2
PER_NODE=2
WORLD=$((NODES * PER_NODE))

bench_need_cluster

# One launch; prints "KIND srun_ms=.. barrier_ms=.. proc_ms=.. main_ms=.."
# (barrier_ms: srun start to the last rank past the barrier; proc_ms: median
# over ranks of process creation to barrier; main_ms: srun start to the last
# rank's first line of Python).
launch() {
	local kind=$1 out=$WORK/$1.out err=$WORK/$1.err t0 t1 rc=0
	local -a envs=(BENCH_T0=placeholder)
	local -a cmd
	case $kind in
	per_task)
		cmd=(srun --mpi=pmix --dist-mode=ddp -N"$NODES" --ntasks-per-node="$PER_NODE" "$PY" "$WORK/prog.py")
		;;
	torchrun)
		envs+=(PET_REDIRECTS=9:1 PET_TEE=9:1)
		# -n: the allocation's SLURM_NTASKS (NODES x PER_NODE) would win
		# over --ntasks-per-node=1 otherwise.
		cmd=(srun --dist-mode=ddp -N"$NODES" -n"$NODES" --ntasks-per-node=1
			"$PY" -m torch.distributed.run --nproc_per_node="$PER_NODE" "$WORK/prog.py")
		;;
	esac
	if [ -n "$RES_OPTS" ]; then
		envs+=("RES_OPTIONS=$RES_OPTS")
	fi
	t0=$EPOCHREALTIME
	envs[0]=BENCH_T0=$t0
	env "${envs[@]}" timeout 180 "${cmd[@]}" >"$out" 2>"$err" || rc=$?
	t1=$EPOCHREALTIME
	if [ "$rc" -ne 0 ] || [ "$(grep -c "^RDV .* world=$WORLD " "$out")" -ne "$WORLD" ]; then
		cat "$err" >&2
		bench_die "$kind: srun exited $rc or not all $WORLD ranks reported (${cmd[*]})"
	fi
	awk -v kind="$kind" -v t0="$t0" -v t1="$t1" '
		function val(k,   i, kv) { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] } }
		/^RDV / { b = val("srun_to_barrier_ms"); m = val("srun_to_main_ms"); p[++n] = val("proc_to_barrier_ms")
			if (b > maxb) maxb = b; if (m > maxm) maxm = m }
		END {
			for (i = 2; i <= n; i++) { t = p[i]; for (j = i - 1; j >= 1 && p[j] > t; j--) p[j + 1] = p[j]; p[j + 1] = t }
			med = (n % 2) ? p[(n + 1) / 2] : (p[n / 2] + p[n / 2 + 1]) / 2
			printf "%s srun_ms=%.1f barrier_ms=%.1f proc_ms=%.1f main_ms=%.1f\n", kind, (t1 - t0) * 1000, maxb, med, maxm }' "$out"
}

# Inside the allocation (this script runs itself under salloc): REPS rounds,
# the order alternating, then one summary line per kind and measure in
# spawntime's format (LABEL median_ms=.. p10_ms=.. p90_ms=.. min_ms=.. reps=..).
if [ "${1:-}" = --inside ]; then
	WORK=$2
	collected=""
	for ((r = 0; r < REPS; r++)); do
		if ((r % 2 == 0)); then order=(per_task torchrun); else order=(torchrun per_task); fi
		for kind in "${order[@]}"; do
			line=$(launch "$kind")
			echo "sample $r $line"
			collected+=$line$'\n'
		done
	done
	for kind in per_task torchrun; do
		for m in barrier srun proc main; do
			grep "^$kind " <<<"$collected" | sed -n "s/.* ${m}_ms=\([^ ]*\).*/\1/p" | sort -g |
				awk -v label="${kind}_$m" '{ v[NR] = $1 } END {
					m = NR; med = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
					printf "%s median_ms=%.1f p10_ms=%.1f p90_ms=%.1f min_ms=%.1f reps=%d\n",
						label, med, v[int(0.1 * (m - 1) + 1.5)], v[int(0.9 * (m - 1) + 1.5)], v[1], m }'
		done
	done
	exit 0
fi

WORK=$TC_DIR/bench-rendezvous.$$
mkdir -p "$WORK"
BENCH_CLEANUP+=("$WORK")
cp "$BENCH_DIR/rdv_prog.py" "$WORK/prog.py"
# Check once, outside the timing, that Debian's torch is there.
"$PY" -c 'import torch.distributed' 2>/dev/null || bench_die "$PY has no torch.distributed (apt-get install python3-torch)"

echo "== rendezvous: $(nproc) cores, $NODES nodes x $PER_NODE ranks, gloo, $REPS repetitions each, order alternating${RES_OPTS:+, RES_OPTIONS=$RES_OPTS}"
LIMIT_MIN=$((2 + REPS * 2 * 200 / 60))
OUT=$(timeout -k 10 $((LIMIT_MIN * 60 + 30)) salloc -Q -t "$LIMIT_MIN" -N"$NODES" --ntasks-per-node="$PER_NODE" \
	"$0" --inside "$WORK")
awk '/^sample / { print "  " $0; next } { print "  raw: " $0 }' <<<"$OUT"
OUT=$(grep -v '^sample ' <<<"$OUT")
bench_compare rendezvous "to barrier (srun start -> last rank past init+barrier)" "$OUT" \
	torchrun_barrier per_task_barrier torchrun per-task
bench_compare rendezvous "srun wall (to srun exit)" "$OUT" torchrun_srun per_task_srun torchrun per-task
bench_compare rendezvous "process start -> barrier (median rank)" "$OUT" torchrun_proc per_task_proc \
	"torchrun worker" "per-task"
awk -v tb="$(bench_field "$OUT" torchrun_barrier median_ms)" -v ts="$(bench_field "$OUT" torchrun_srun median_ms)" \
	-v pb="$(bench_field "$OUT" per_task_barrier median_ms)" -v ps="$(bench_field "$OUT" per_task_srun median_ms)" \
	-v tm="$(bench_field "$OUT" torchrun_main median_ms)" -v pm="$(bench_field "$OUT" per_task_main median_ms)" 'BEGIN {
	printf "  srun start -> last rank runs Python: per-task %.0f ms, torchrun %.0f ms (torchrun start-up, rendezvous, worker spawn)\n", pm, tm
	printf "  after the barrier until srun exits (teardown): per-task %.0f ms, torchrun %.0f ms\n", ps - pb, ts - tb }'
