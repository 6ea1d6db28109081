#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# srun_step.sh — what --dist-mode=ddp adds to a whole srun step, as a ratio of
# each wrapped step to the same step bare, on the local test cluster.
#
#   bench/srun_step.sh
#
# Needs the cluster of contrib/slurm/testcluster.sh up with the plugin
# (bench/run-all.sh brings it up and down). Inside one allocation of 3 nodes x
# 2 tasks, the wall time of each srun (srun start to srun exit: step creation,
# launch on 3 slurmd, 6 tasks, step end) is measured for these pairs, every
# variant interleaved with the others in one run:
#   srun -N3 --ntasks-per-node=2 /bin/true                 vs  + --dist-mode=ddp
#   srun --mpi=pmix -N3 --ntasks-per-node=2 /bin/true      vs  + --dist-mode=ddp
#   the same two pairs with /usr/bin/python3 -c pass (a python-startup-sized task)
# The plugin is loaded in every step (plugstack.conf): "bare" is a step without
# --dist-mode, i.e. what the wrapped step would be without the shim.
#
# Then, unless BENCH_STEP_DIAG=0, where the difference comes from: in steps of
# the same shape each task stamps the time just before it execs the program
# (bash: EPOCHREALTIME, then exec) and the program stamps its own start
# (/bin/date), bare and through `dist-shim --mode ddp`, with and without PMIx.
# Printed: per-task time from that exec to the program's start (median over
# tasks and steps), and the launch skew (last task's start minus first's in a
# step), which a fence has to wait out; "shim_addr" is the shim without PMIx
# with MASTER_ADDR exported, i.e. without its query to slurmctld.
#
# Variables: BENCH_STEP_REPS (default 10), BENCH_STEP_WARMUP (default 2),
#   BENCH_STEP_DIAG (default 1; the diagnostic runs BENCH_STEP_DIAG_REPS=3),
#   BENCH_SCOPE=step (default: steps in one salloc allocation) or job (every
#   srun makes its own allocation: adds scheduling to both sides),
#   BENCH_RESULTS (see lib.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REPS=${BENCH_STEP_REPS:-10}
WARMUP=${BENCH_STEP_WARMUP:-2}
SCOPE=${BENCH_SCOPE:-step}
bench_need_uint BENCH_STEP_REPS "$REPS"
bench_need_uint BENCH_STEP_WARMUP "$((WARMUP + 1))"
case $SCOPE in step | job) ;; *) bench_die "BENCH_SCOPE must be step or job, got '$SCOPE'" ;; esac
DIAG=${BENCH_STEP_DIAG:-1}
DIAG_REPS=${BENCH_STEP_DIAG_REPS:-3}
bench_need_uint BENCH_STEP_DIAG_REPS "$DIAG_REPS"
NODES=3
PER_NODE=2
PY=/usr/bin/python3
[ -x "$PY" ] || bench_die "$PY not found"

bench_need_cluster
bench_build_tools

GEOM=(-N"$NODES" --ntasks-per-node="$PER_NODE")
CMDS=(bare srun "${GEOM[@]}" /bin/true
	::: ddp srun --dist-mode=ddp "${GEOM[@]}" /bin/true
	::: pmix srun --mpi=pmix "${GEOM[@]}" /bin/true
	::: pmix_ddp srun --mpi=pmix --dist-mode=ddp "${GEOM[@]}" /bin/true
	::: py srun "${GEOM[@]}" "$PY" -c pass
	::: py_ddp srun --dist-mode=ddp "${GEOM[@]}" "$PY" -c pass
	::: py_pmix srun --mpi=pmix "${GEOM[@]}" "$PY" -c pass
	::: py_pmix_ddp srun --mpi=pmix --dist-mode=ddp "${GEOM[@]}" "$PY" -c pass)

# Each wrapped variant must really work (and really be wrapped) before it is
# timed: one checked run each, outside the timing.
check() {
	local out
	out=$(timeout 60 srun "$@" "${GEOM[@]}" /usr/bin/env 2>&1) ||
		bench_die "srun $* ${GEOM[*]} failed: $out"
	[ "$(grep -c '^MASTER_PORT=' <<<"$out")" -eq $((NODES * PER_NODE)) ] ||
		bench_die "srun $* did not wrap every task: $out"
}

measure() {
	check --dist-mode=ddp
	check --mpi=pmix --dist-mode=ddp
	bench_time "$REPS" "$WARMUP" "${CMDS[@]}"
}

# One step whose tasks stamp "RANK before T" just before exec'ing the program
# (bare, or through the shim: $1 = none|shim) and "RANK after T" as the
# program's first act; the rest are srun's options.
stamp_step() {
	local how=$1
	shift
	# shellcheck disable=SC2016 # expanded by the task's bash, not here
	local inner='exec /bin/date "+$SLURM_PROCID after %s.%N"'
	if [ "$how" = shim ]; then
		# shellcheck disable=SC2016
		inner='exec "$SHIM" --mode ddp -- /bin/date "+$SLURM_PROCID after %s.%N"'
	fi
	# shellcheck disable=SC2016
	SHIM=$SHIM timeout 60 srun "$@" "${GEOM[@]}" \
		bash -c 'echo "$SLURM_PROCID before $EPOCHREALTIME"; '"$inner"
}

# DIAG_REPS steps of each kind, interleaved; one line per kind:
# diag_KIND hop_ms=M skew_ms=S tasks=N steps=K, M the median over tasks of the
# time from exec to the program's start, S the median over steps of the
# launch skew (latest task start minus earliest).
diagnose() {
	local r kind name how first addr
	# Rank 0's node: the allocation's first (or, one allocation per srun, the
	# cluster's first: where an idle cluster puts rank 0).
	first=$(scontrol show hostnames "${SLURM_JOB_NODELIST:-$(sinfo -h -N -o %N | head -1)}" | head -1)
	addr=$(scontrol show node "$first" | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')
	local -A stamps=()
	local -a mpi
	for ((r = 0; r < DIAG_REPS; r++)); do
		for kind in bare:none bare_pmix:none shim:shim shim_addr:shim shim_pmix:shim; do
			name=${kind%%:*} how=${kind#*:} mpi=()
			if [[ $name == *pmix ]]; then mpi=(--mpi=pmix); fi
			if [ "$name" = shim_addr ]; then
				# MASTER_ADDR given: no slurmctld query for rank 0's NodeAddr.
				stamps[$name]+="$(MASTER_ADDR=$addr stamp_step "$how")"$'\n--\n'
			else
				stamps[$name]+="$(stamp_step "$how" "${mpi[@]}")"$'\n--\n'
			fi
		done
	done
	for name in bare bare_pmix shim shim_addr shim_pmix; do
		printf '%s' "${stamps[$name]}" | awk -v kind="diag_$name" '
			function median(a, n,   i, j, t) {
				for (i = 2; i <= n; i++) {
					t = a[i]
					for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
					a[j + 1] = t
				}
				return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			$2 == "before" { b[$1] = $3; if (lo == "" || $3 < lo) lo = $3; if (hi == "" || $3 > hi) hi = $3 }
			$2 == "after" { h[++nh] = ($3 - b[$1]) * 1000 }
			$1 == "--" { sk[++ns] = (hi - lo) * 1000; lo = hi = "" }
			END { printf "%s hop_ms=%.2f skew_ms=%.2f tasks=%d steps=%d\n", kind, median(h, nh), median(sk, ns), nh, ns }'
	done
}

# Inside the allocation (this script runs itself under salloc).
if [ "${1:-}" = --inside ]; then
	measure
	if [ "$DIAG" = 1 ]; then
		diagnose
	fi
	exit 0
fi

# Bounds: Slurm ends the allocation after --time (every srun in it ends with
# it); timeout ends salloc a little later whatever happens.
LIMIT_MIN=$((2 + (REPS + WARMUP) * 8 * 3 / 60))
echo "== srun step: $(nproc) cores, $NODES nodes x $PER_NODE tasks, $REPS interleaved repetitions (+$WARMUP warm-up), scope $SCOPE"
if [ "$SCOPE" = step ]; then
	OUT=$(BENCH_TOOLS=$BENCH_TOOLS timeout -k 10 $((LIMIT_MIN * 60 + 30)) \
		salloc -Q -t "$LIMIT_MIN" "${GEOM[@]}" "$0" --inside)
else
	OUT=$(BENCH_TOOLS=$BENCH_TOOLS timeout -k 10 $((LIMIT_MIN * 60 + 30)) "$0" --inside)
fi
awk '{ print "  raw: " $0 }' <<<"$OUT"
TIMES=$(grep ' median_ms=' <<<"$OUT")
OUT=$TIMES$'\n'$(grep '^diag_' <<<"$OUT" || true)
bench_compare srun_step "srun step /bin/true" "$OUT" bare ddp bare ddp
bench_compare srun_step "srun step /bin/true, --mpi=pmix" "$OUT" pmix pmix_ddp bare ddp
bench_compare srun_step "srun step python3 -c pass" "$OUT" py py_ddp bare ddp
bench_compare srun_step "srun step python3 -c pass, --mpi=pmix" "$OUT" py_pmix py_pmix_ddp bare ddp
# For reading the above: what --mpi=pmix itself costs a bare step.
bench_compare srun_step "(reference) --mpi=pmix vs none, bare /bin/true" "$OUT" bare pmix none pmix
if grep -q '^diag_' <<<"$OUT"; then
	echo "-- where it goes (per task, median over tasks x $DIAG_REPS steps each; exec -> program start, launch skew):"
	for k in bare shim shim_addr bare_pmix shim_pmix; do
		awk -v k="diag_$k" '$1 == k { sub(/^diag_/, "", $1); printf "  %-10s exec->start %s ms, skew %s ms (%s tasks)\n", $1, substr($2, 8), substr($3, 9), substr($4, 7) }' <<<"$OUT"
	done
fi
