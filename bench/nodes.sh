#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodes.sh — does what --dist-mode=ddp costs a whole srun step grow with the
# number of nodes? The ratio of the wrapped step to the bare step, measured
# side by side, at 3, 8, 16 and 32 real slurmd (issue 21, "Scale of real
# daemons").
#
#   bench/nodes.sh [BUILD_DIR]
#
# BUILD_DIR (default build/) must hold spank/spank_dist.so and shim/dist-shim.
# Needs root. The script re-runs itself in new PID, network, mount and UTS
# namespaces (as tests/integration/site_cgroup.sh does), so the clusters it
# makes never meet another on this machine, and whatever it started dies with
# the PID namespace however it ends. There, for each size N x P in
# BENCH_NODES_SIZES, it brings up a test cluster of N nodes
# (contrib/slurm/testcluster.sh, TC_NODES=N, TC_DIR=BENCH_NODES_TC_DIR, with
# the build's plugin and shim; the cluster is kept for the next size when N
# does not change) and, in one allocation of the N nodes, times whole srun
# steps of N nodes x P tasks, /bin/true, interleaved (bench_time):
#   bare_none  srun --mpi=none -N N --ntasks-per-node=P /bin/true
#   ddp_none   srun --mpi=none --dist-mode=ddp ...
#   ref_none   srun --mpi=none ... hop /bin/true     (a 1-line exec wrapper:
#              the least any wrapper of the task costs)
#   bare_pmix  srun --mpi=pmix ...                   (when Slurm has PMIx)
#   ddp_pmix   srun --mpi=pmix --dist-mode=ddp ...
#   ref_pmix   srun --mpi=pmix ... pmixmin put /bin/true (PMIx_Init, one put,
#              one collecting fence: the least the shim's exchange costs)
# and prints ddp/bare for each size and PMI, of the medians and of the
# minimums, and the references' ratios: on a machine whose few cores run
# every node, more nodes also mean more tasks on the same cores, and the
# references show what that alone does to a wrapped step. The references
# need a C compiler (and pkg-config's pmix for ref_pmix); without, they are
# left out. Then one step more, untimed: srun --mpi=pmix --dist-mode=ddp, in
# which rank 0 reads what its node's first task kept of the exchange for the
# node's other tasks (the step directory's `exchange`, shim/wireup/shared.c):
# each value read after the fence with its length, i.e. every node's record
# and rank 0's port, the data the one fence carries (PMIx's own framing not
# counted).
#
# Writes BENCH_NODES_OUT/nodes.tsv (one row per size and PMI) and, when
# gnuplot is installed (Debian: gnuplot-nox), BENCH_NODES_OUT/nodes-ratio.svg:
# ratio against nodes, one line per PMI and tasks per node.
#
# A size whose cluster does not come up or whose steps fail (e.g. more tasks
# than this machine holds) is reported as failed and skipped; the exit status
# is then 1.
#
# Variables: BENCH_NODES_SIZES (default "3x2 8x2 16x2 32x2 32x8"),
#   BENCH_NODES_REPS (5), BENCH_NODES_WARMUP (1), BENCH_NODES_TC_DIR
#   (/var/lib/slurm-dist-bench-nodes), BENCH_NODES_OUT (BENCH_NODES_TC_DIR/
#   results), BENCH_QUICK=1 (sizes "3x2 8x2", 2 repetitions), BENCH_RESULTS
#   (see lib.sh). About 12 minutes on 2 cores with the defaults, 2 with
#   BENCH_QUICK=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	SIZES=${BENCH_NODES_SIZES:-3x2 8x2}
	REPS=${BENCH_NODES_REPS:-2}
else
	SIZES=${BENCH_NODES_SIZES:-3x2 8x2 16x2 32x2 32x8}
	REPS=${BENCH_NODES_REPS:-5}
fi
WARMUP=${BENCH_NODES_WARMUP:-1}
NODES_TC_DIR=${BENCH_NODES_TC_DIR:-/var/lib/slurm-dist-bench-nodes}
# hop and pmixmin, where the nodes see them (each node has its own /tmp).
TOOLS=$NODES_TC_DIR/tools
OUT_DIR=${BENCH_NODES_OUT:-$NODES_TC_DIR/results}
bench_need_uint BENCH_NODES_REPS "$REPS"
bench_need_uint BENCH_NODES_WARMUP "$((WARMUP + 1))"
for s in $SIZES; do
	[[ $s =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || bench_die "BENCH_NODES_SIZES: '$s' is not NODESxTASKS (e.g. 32x2)"
done
[ -n "${SIZES// /}" ] || bench_die "BENCH_NODES_SIZES is empty"
TC=$SRC_DIR/contrib/slurm/testcluster.sh
DATA=$OUT_DIR/nodes.tsv
PLOT=$OUT_DIR/nodes-ratio.svg
PMIS=(none pmix)
declare -A REF_NAME=([none]=hop [pmix]=put_fence)

# --- in the allocation: the timed steps of N nodes x P tasks -----------------

if [ "${1:-}" = --inside ]; then
	n=$2 p=$3
	g=(-N"$n" --ntasks-per-node="$p")
	cmds=()
	for mpi in "${PMIS[@]}"; do
		[ "$mpi" = none ] || [ "${BENCH_NODES_HAVE_PMIX:-0}" = 1 ] || continue
		cmds+=(::: "bare_$mpi" srun --mpi="$mpi" "${g[@]}" /bin/true
			::: "ddp_$mpi" srun --mpi="$mpi" --dist-mode=ddp "${g[@]}" /bin/true)
		ref=("$TOOLS/hop")
		[ "$mpi" = none ] || ref=("$TOOLS/pmixmin" put)
		if [ -x "${ref[0]}" ]; then
			cmds+=(::: "ref_$mpi" srun --mpi="$mpi" "${g[@]}" "${ref[@]}" /bin/true)
		fi
	done
	bench_time "$REPS" "$WARMUP" "${cmds[@]:1}"
	exit 0
fi

# --- in the new namespaces: one cluster per node count ----------------------

# fence_bytes N P: "BYTES VALUES" of what rank 0's node read after the
# fence, from one --mpi=pmix --dist-mode=ddp step; "- -" if it cannot tell.
fence_bytes() {
	local text
	# shellcheck disable=SC2016 # expanded by the task's shell
	text=$(timeout 120 srun --mpi=pmix --dist-mode=ddp -N"$1" --ntasks-per-node="$2" \
		bash -c '[ "$SLURM_PROCID" = 0 ] || exit 0
			cat "${TMPDIR:-/tmp}/slurm-dist.job$SLURM_JOB_ID.step$SLURM_STEP_ID".*/exchange' \
		2>/dev/null) || true
	# "value RANK KEY LENGTH", then the value on its own line.
	awk '$1 == "value" && NF == 4 { b += $4; v++ } END { if (v) print b, v; else print "- -" }' <<<"$text"
}

# run_size N P: times one size on the cluster that is up; appends its rows
# to $DATA. Returns 1 if the steps failed.
run_size() {
	local n=$1 p=$2 out limit_s fence f mpi bm wm bmin wmin rm
	# A generous bound: 0.2 s per task and step, 6 steps a round, plus a minute.
	limit_s=$((60 + (REPS + WARMUP) * 6 * (2 + n * p / 5)))
	echo "== $n nodes x $p tasks ($((n * p)) tasks), $REPS interleaved repetitions (+$WARMUP warm-up), bound ${limit_s}s"
	if ! out=$(BENCH_TOOLS=$BENCH_TOOLS BENCH_NODES_HAVE_PMIX=$HAVE_PMIX timeout -k 10 "$((limit_s + 30))" \
		salloc -Q -t "$(((limit_s + 59) / 60))" -N"$n" --exclusive "$0" --inside "$n" "$p"); then
		echo "nodes: $n x $p: the steps failed or ran past ${limit_s}s; size skipped" >&2
		printf '%s\t%s\tfailed\n' "$n" "$p" >>"$DATA"
		return 1
	fi
	awk '{ print "  raw: " $0 }' <<<"$out"
	fence="- -"
	if [ "$HAVE_PMIX" = 1 ]; then
		fence=$(fence_bytes "$n" "$p")
		echo "  fence: ${fence% *} bytes in ${fence#* } values read by rank 0's node after the fence"
	fi
	for mpi in "${PMIS[@]}"; do
		grep -q "^bare_$mpi " <<<"$out" || continue
		bench_compare nodes "$n x $p, ddp --mpi=$mpi vs bare" "$out" "bare_$mpi" "ddp_$mpi" bare ddp
		bm=$(bench_field "$out" "bare_$mpi" median_ms)
		wm=$(bench_field "$out" "ddp_$mpi" median_ms)
		bmin=$(bench_field "$out" "bare_$mpi" min_ms)
		wmin=$(bench_field "$out" "ddp_$mpi" min_ms)
		rm=$(bench_field "$out" "ref_$mpi" median_ms)
		if [ -n "$rm" ]; then
			bench_compare nodes "(ref) $n x $p, --mpi=$mpi, ${REF_NAME[$mpi]} vs bare" "$out" "bare_$mpi" "ref_$mpi" bare "${REF_NAME[$mpi]}"
			bench_compare nodes "$n x $p, ddp --mpi=$mpi vs ${REF_NAME[$mpi]}" "$out" "ref_$mpi" "ddp_$mpi" "${REF_NAME[$mpi]}" ddp
		fi
		# The fence is PMIx's: none without it.
		f="- -"
		[ "$mpi" != pmix ] || f=$fence
		awk -v n="$n" -v p="$p" -v mpi="$mpi" -v bm="$bm" -v wm="$wm" -v bmin="$bmin" \
			-v wmin="$wmin" -v reps="$REPS" -v ref="${rm:+${REF_NAME[$mpi]}}" -v rm="$rm" \
			-v fence="$f" 'BEGIN {
			split(fence, f, " ")
			printf "%d\t%d\t%s\t%.1f\t%.1f\t%.3f\t%.1f\t%.1f\t%.3f\t%d\t", n, p, mpi, bm, wm,
				wm / bm, bmin, wmin, wmin / bmin, reps
			if (ref != "")
				printf "%s\t%.1f\t%.3f\t%.3f\t", ref, rm, rm / bm, wm / rm
			else
				printf "-\t-\t-\t-\t"
			printf "%s\t%s\n", f[1], f[2] }' >>"$DATA"
	done
}

# shellcheck disable=SC2317 # called from the EXIT trap
cluster_down() {
	TC_DIR=$NODES_TC_DIR timeout 180 "$TC" down >/dev/null 2>&1 ||
		echo "bench: warning: testcluster.sh down failed" >&2
}

if [ "${BENCH_NODES_INNER:-}" = 1 ]; then
	trap 'cluster_down; bench_cleanup' EXIT
	HAVE_PMIX=0
	up_nodes=0 failed=0
	for s in $SIZES; do
		n=${s%x*} p=${s#*x}
		if [ "$n" != "$up_nodes" ]; then
			t0=$SECONDS
			if ! TC_NODES=$n TC_DIR=$NODES_TC_DIR TC_PLUGIN=$PLUGIN TC_SHIM=$SHIM_BUILD \
				TC_TIMEOUT=$((60 + 2 * n)) timeout $((240 + 10 * n)) "$TC" up >"$OUT_DIR/up.log" 2>&1; then
				tail -5 "$OUT_DIR/up.log" >&2
				echo "nodes: a cluster of $n nodes did not come up ($OUT_DIR/up.log); $s skipped" >&2
				printf '%s\t%s\tfailed\n' "$n" "$p" >>"$DATA"
				up_nodes=0 failed=1
				continue
			fi
			eval "$(TC_NODES=$n TC_DIR=$NODES_TC_DIR "$TC" env)"
			echo "== cluster of $n nodes up in $((SECONDS - t0))s"
			timeout 20 srun --help 2>/dev/null | grep -q -- '--dist-mode' ||
				bench_die "the cluster runs without spank_dist.so"
			if timeout 20 srun --mpi=list 2>&1 | grep -qw pmix; then HAVE_PMIX=1; fi
			up_nodes=$n
		fi
		t0=$SECONDS
		run_size "$n" "$p" || failed=1
		echo "== $s took $((SECONDS - t0))s"
	done
	exit "$failed"
fi

# --- on this machine: the namespaces, then the table and the plot -----------

BUILD=${1:-$SRC_DIR/build}
bench_need_build "$BUILD"
[ "$(id -u)" -eq 0 ] || bench_die "the test clusters need root"
command -v unshare >/dev/null || bench_die "unshare not found (util-linux)"
case $NODES_TC_DIR in
/tmp/*) bench_die "BENCH_NODES_TC_DIR must not be under /tmp (each node has its own /tmp)" ;;
/*) ;;
*) bench_die "BENCH_NODES_TC_DIR must be an absolute path: $NODES_TC_DIR" ;;
esac
mkdir -p "$OUT_DIR"
: >"$DATA"
bench_build_tools
rm -rf "$TOOLS"
mkdir -p "$TOOLS"
if [ "$BENCH_HAVE_CC" = 1 ]; then
	cp "$BENCH_TOOLS/hop" "$TOOLS/hop"
	if pkg-config --exists pmix 2>/dev/null; then
		bench_build_pmixmin "$TOOLS"
	else
		echo "== no pkg-config pmix (libpmix-dev): no PMIx reference (ref_pmix)"
	fi
else
	echo "== no C compiler: no references (ref_none, ref_pmix)"
fi

started=$SECONDS
echo "== nodes: ddp/bare of whole srun steps as nodes grow: $(nproc) cores, sizes $SIZES (nodes x tasks a node), $REPS interleaved repetitions (+$WARMUP warm-up), $(date -u '+%Y-%m-%d %H:%M UTC')"
rc=0
# shellcheck disable=SC2016 # expanded by the inner shell
BENCH_NODES_INNER=1 PLUGIN=$PLUGIN SHIM_BUILD=$SHIM_BUILD BENCH_TOOLS=$BENCH_TOOLS \
	BENCH_NODES_SIZES=$SIZES BENCH_NODES_REPS=$REPS BENCH_NODES_WARMUP=$WARMUP \
	BENCH_NODES_TC_DIR=$NODES_TC_DIR BENCH_NODES_OUT=$OUT_DIR BENCH_RESULTS=$BENCH_RESULTS \
	unshare --pid --fork --net --mount --uts --propagation private -- bash -c '
		mount -t proc proc /proc
		mount -t tmpfs -o mode=0755 tmpfs /run
		ip link set lo up
		hostname localhost
		exec "$@"' inner "$0" || rc=$?
echo "== nodes: took $((SECONDS - started))s"

echo "== nodes: ratio = ddp / bare of the same step shape, same run (min: of the fastest repetitions; ref: the reference wrapper, hop or put_fence)"
awk -F'\t' '
	BEGIN { printf "%-8s  %6s  %-5s  %8s  %8s  %6s  %9s  %-9s  %8s  %8s  %11s\n", "size", "tasks",
		"mpi", "bare ms", "ddp ms", "ratio", "min ratio", "ref", "ref/bare", "ddp/ref", "fence bytes" }
	$3 == "failed" { printf "%-8s  %6d  failed\n", $1 " x " $2, $1 * $2; next }
	{ printf "%-8s  %6d  %-5s  %8.0f  %8.0f  %5.2fx  %8.2fx  %-9s  %8s  %8s  %11s\n", $1 " x " $2,
		$1 * $2, $3, $4, $5, $6, $9, $11, ($11 == "-" ? "-" : sprintf("%.2fx", $13)),
		($11 == "-" ? "-" : sprintf("%.2fx", $14)), $15 }' "$DATA"
echo "== table: $DATA"

if ! command -v gnuplot >/dev/null; then
	echo "== no gnuplot: no plot (Debian: apt-get install gnuplot-nox)"
	exit "$rc"
fi
# Per PMI and tasks a node: ddp / bare (solid) and the reference / bare
# (dashed), ratio of medians against nodes.
series=$(awk -F'\t' '$3 != "failed" { print $3 "\t" $2 "\t" $11 }' "$DATA" | sort -u)
plots=""
while IFS=$'\t' read -r mpi p ref; do
	[ -n "$mpi" ] || continue
	color="'#1f77b4'"
	[ "$mpi" = none ] || color="'#d62728'"
	sel="(strcol(3) eq '$mpi' && \$2 == $p) ? \$1 : NaN"
	plots+="${plots:+, }'$DATA' using ($sel):6 with linespoints linewidth 2 pointtype $((p == 2 ? 7 : 5)) pointsize 1 linecolor rgb $color title 'ddp, --mpi=$mpi, $p tasks a node'"
	if [ "$ref" != - ]; then
		plots+=", '$DATA' using ($sel):13 with linespoints dashtype 2 pointtype $((p == 2 ? 6 : 4)) linecolor rgb $color title '$ref (reference), --mpi=$mpi, $p tasks a node'"
	fi
done <<<"$series"
if [ -n "$plots" ]; then
	gnuplot <<EOF || bench_die "gnuplot failed"
set terminal svg size 760,480 dynamic font 'sans,12' background '#ffffff'
set output '$PLOT'
set datafile separator '\t'
set title "srun step /bin/true, wrapped over bare: $(nproc)-core machine running every daemon\n$(date -u '+%Y-%m-%d'), medians of $REPS interleaved repetitions (bench/nodes.sh)"
set xlabel 'nodes (real slurmd, contrib/slurm/testcluster.sh)'
set ylabel 'ratio to the bare step (medians)'
set logscale x 2
set xtics ($(awk -F'\t' '$3 != "failed" { print $1 }' "$DATA" | sort -un | paste -sd,))
set xrange [2.5:40]
set yrange [0.8:*]
set termoption noenhanced
set grid ytics
set key top left font ',10'
plot $plots, 1 with lines dashtype 3 linecolor 'gray' notitle
EOF
	echo "== plot: $PLOT"
fi
exit "$rc"
