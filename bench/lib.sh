# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Helpers shared by the benchmark scripts of bench/ (sourced, not run).
#
# Every figure the scripts print is a RATIO of a wrapped launch to the bare
# launch it wraps, both measured in the same run with their repetitions
# interleaved (see /work/shared/guide/performance-anchors.md): absolute times
# on a shared 2-core machine mean little, ratios taken side by side do.
#
# Variables (all optional):
#   BENCH_RESULTS   file to which each comparison appends one tab-separated row
#                   (group, what, bare label, bare ms, wrapped label, wrapped ms,
#                   ratio, reps); run-all.sh builds its table from it
#   BENCH_TOOLS     directory with prebuilt spawntime/hop (default: built into a
#                   temporary directory, removed at exit)
#   CC              C compiler for the timing helper (default: cc)
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC_DIR=$(cd "$BENCH_DIR/.." && pwd)
BENCH_RESULTS=${BENCH_RESULTS:-}

bench_die() {
	echo "bench: error: $*" >&2
	exit 1
}

# bench_need_build BUILD_DIR: sets PLUGIN and SHIM_BUILD to the build's
# plugin and shim, or dies saying how to build them.
bench_need_build() {
	PLUGIN=$1/spank/spank_dist.so
	SHIM_BUILD=$1/shim/dist-shim
	if [ ! -f "$PLUGIN" ] || [ ! -x "$SHIM_BUILD" ]; then
		bench_die "no plugin/shim in $1 (cmake -S $SRC_DIR -B $1 && cmake --build $1)"
	fi
}

bench_need_uint() { # NAME VALUE
	[[ $2 =~ ^[1-9][0-9]*$ ]] || bench_die "$1 must be a positive integer, got '$2'"
}

# Builds the timing helper (bench/spawntime.c) and a minimal exec-only wrapper
# (the reference "one exec hop") into $BENCH_TOOLS. Sets BENCH_HAVE_CC=1 when
# that worked; without a compiler the scripts fall back to a bash loop.
BENCH_HAVE_CC=0
bench_build_tools() {
	local cc=${CC:-cc}
	if [ -z "${BENCH_TOOLS:-}" ]; then
		BENCH_TOOLS=$(mktemp -d "${TMPDIR:-/tmp}/slurm-dist-bench.XXXXXX")
		BENCH_CLEANUP+=("$BENCH_TOOLS")
	fi
	if [ -x "$BENCH_TOOLS/spawntime" ] && [ -x "$BENCH_TOOLS/hop" ]; then
		BENCH_HAVE_CC=1
		return 0
	fi
	command -v "$cc" >/dev/null || {
		echo "bench: no C compiler ($cc): timing with a bash loop instead (coarser)" >&2
		return 0
	}
	if ! "$cc" -O2 -Wall -o "$BENCH_TOOLS/spawntime" "$BENCH_DIR/spawntime.c" ||
		! printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv(v[1], v + 1); return 127; }\n' |
		"$cc" -O2 -x c -o "$BENCH_TOOLS/hop" -; then
		bench_die "cannot build the timing helper with $cc"
	fi
	BENCH_HAVE_CC=1
}

# bench_build_pmixmin DIR: bench/pmixmin.c (the least a PMIx client does)
# built as DIR/pmixmin; DIR must be one the test nodes see (under TC_DIR:
# each node has its own /tmp).
bench_build_pmixmin() {
	local text flags
	text=$(pkg-config --cflags --libs pmix 2>/dev/null) ||
		bench_die "pkg-config knows no pmix (apt-get install libpmix-dev)"
	read -ra flags <<<"$text"
	"${CC:-cc}" -O2 -o "$1/pmixmin" "$BENCH_DIR/pmixmin.c" "${flags[@]}" ||
		bench_die "cannot build bench/pmixmin.c"
}

# Paths removed when the script exits, however it exits.
BENCH_CLEANUP=()
bench_cleanup() {
	local p
	for p in "${BENCH_CLEANUP[@]}"; do
		rm -rf -- "$p"
	done
}
trap bench_cleanup EXIT

# bench_time REPS WARMUP LABEL CMD... [::: LABEL CMD...]...
# Runs the commands interleaved (spawntime, or the bash fallback) and prints
# one line per command: LABEL median_ms=.. p10_ms=.. p90_ms=.. min_ms=.. reps=..
bench_time() {
	local reps=$1 warmup=$2
	shift 2
	if [ "$BENCH_HAVE_CC" = 1 ]; then
		"$BENCH_TOOLS/spawntime" -n "$reps" -w "$warmup" "$@"
	else
		bench_time_bash "$reps" "$warmup" "$@"
	fi
}

# Same contract as spawntime, in bash: EPOCHREALTIME around each command, so
# every figure also carries a bash fork (the same for bare and wrapped).
bench_time_bash() {
	local reps=$1 warmup=$2 n=0 r k i t0 t1
	shift 2
	local -a labels=() cmds=() samples=()
	local cur=""
	while [ $# -gt 0 ]; do
		if [ "$1" = ":::" ]; then
			n=$((n + 1))
		elif [ -z "${labels[n]:-}" ]; then
			labels[n]=$1
			cmds[n]=""
		else
			cur=$(printf '%q' "$1")
			cmds[n]+="$cur "
		fi
		shift
	done
	n=$((n + 1))
	for ((r = 0; r < warmup + reps; r++)); do
		for ((i = 0; i < n; i++)); do
			k=$(((i + r) % n))
			t0=$EPOCHREALTIME
			eval "${cmds[k]}" </dev/null >/dev/null 2>&1 ||
				bench_die "${labels[k]}: ${cmds[k]}exited non-zero"
			t1=$EPOCHREALTIME
			if [ "$r" -ge "$warmup" ]; then
				samples[k]+="$t0 $t1"$'\n'
			fi
		done
	done
	for ((k = 0; k < n; k++)); do
		printf '%s' "${samples[k]}" | awk '{ printf "%.6f\n", ($2 - $1) * 1000 }' | sort -g |
			awk -v label="${labels[k]}" -v reps="$reps" '
			{ v[NR] = $1 }
			END {
				m = NR
				med = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
				printf "%s median_ms=%.3f p10_ms=%.3f p90_ms=%.3f min_ms=%.3f reps=%d\n",
					label, med, v[int(0.1 * (m - 1) + 1.5)], v[int(0.9 * (m - 1) + 1.5)], v[1], reps
			}'
	done
}

# bench_field OUTPUT LABEL FIELD: a field (median_ms, p10_ms...) of LABEL's line.
bench_field() {
	awk -v label="$2" -v field="$3" '$1 == label {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == field) print kv[2] } }' <<<"$1"
}

# bench_compare GROUP WHAT OUTPUT BARE_LABEL WRAPPED_LABEL [BARE_NAME WRAPPED_NAME]
# Prints "WHAT: bare X ms, wrapped Y ms, ratio R x, +D ms (median of N; p10-p90 ...)"
# and appends the row to $BENCH_RESULTS.
bench_compare() {
	local group=$1 what=$2 out=$3 bl=$4 wl=$5 bn=${6:-bare} wn=${7:-$5}
	local bm wm reps bp10 bp90 wp10 wp90
	bm=$(bench_field "$out" "$bl" median_ms)
	wm=$(bench_field "$out" "$wl" median_ms)
	reps=$(bench_field "$out" "$wl" reps)
	bp10=$(bench_field "$out" "$bl" p10_ms)
	bp90=$(bench_field "$out" "$bl" p90_ms)
	wp10=$(bench_field "$out" "$wl" p10_ms)
	wp90=$(bench_field "$out" "$wl" p90_ms)
	if [ -z "$bm" ] || [ -z "$wm" ]; then
		bench_die "no timing for $bl or $wl in: $out"
	fi
	awk -v what="$what" -v bn="$bn" -v wn="$wn" -v bm="$bm" -v wm="$wm" -v reps="$reps" \
		-v bp10="$bp10" -v bp90="$bp90" -v wp10="$wp10" -v wp90="$wp90" 'BEGIN {
		printf "%s: %s %.2f ms, %s %.2f ms, ratio %.2fx, %+.2f ms (median of %d; p10-p90 %.2f-%.2f vs %.2f-%.2f ms)\n",
			what, bn, bm, wn, wm, wm / bm, wm - bm, reps, bp10, bp90, wp10, wp90 }'
	if [ -n "$BENCH_RESULTS" ]; then
		awk -v g="$group" -v what="$what" -v bn="$bn" -v wn="$wn" -v bm="$bm" -v wm="$wm" \
			-v reps="$reps" 'BEGIN {
			printf "%s\t%s\t%s\t%.3f\t%s\t%.3f\t%.3f\t%d\n", g, what, bn, bm, wn, wm, wm / bm, reps }' \
			>>"$BENCH_RESULTS"
	fi
}

# For the cluster scripts: the cluster of contrib/slurm/testcluster.sh must
# be up with the plugin under test; sets TC_DIR, SLURM_CONF, SHIM.
bench_need_cluster() {
	eval "$("$SRC_DIR/contrib/slurm/testcluster.sh" env)"
	timeout 20 sinfo -h >/dev/null 2>&1 ||
		bench_die "the test cluster is not up; run bench/run-all.sh, or first: TC_PLUGIN=$SRC_DIR/build/spank/spank_dist.so TC_SHIM=$SRC_DIR/build/shim/dist-shim $SRC_DIR/contrib/slurm/testcluster.sh up"
	timeout 20 srun --help 2>/dev/null | grep -q -- '--dist-mode' ||
		bench_die "the test cluster runs without spank_dist.so (bring it up with TC_PLUGIN and TC_SHIM)"
	SHIM=$TC_DIR/stage/dist-shim
	[ -x "$SHIM" ] || bench_die "no staged shim at $SHIM"
}
