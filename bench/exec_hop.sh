#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# exec_hop.sh — what dist-shim costs one task when no exchange happens: the
# extra exec hop plus the shim's own start-up, as a ratio to the bare exec.
# No cluster needed.
#
#   bench/exec_hop.sh [SHIM]
#
# SHIM defaults to build/shim/dist-shim. Measured in one run, interleaved
# (bare, wrapped, bare, wrapped...), medians over BENCH_REPS repetitions:
#   bare            /bin/true spawned and waited for
#   hop             a 1-line C program that only execs /bin/true: the
#                   reference "one extra exec hop" of performance-anchors.md
#   hop+libs        the same 1-line program linked to libslurm and libpmix, as
#                   the shim was before it reached them through its modules
#                   (what loading them on every exec would cost)
#   shim(none)      dist-shim --mode none -- /bin/true
#   shim(ddp)       dist-shim --mode ddp -- /bin/true under a faked Slurm step
#                   environment without PMIx (SLURM_PROCID=0 ... and
#                   MASTER_ADDR=127.0.0.1, so no slurmctld call happens): the
#                   Slurm-env wire-up, interface listing and port check
# Each wrapped figure is printed as a ratio to bare. When hyperfine is
# installed, a non-interleaved hyperfine cross-check follows.
#
# Variables: BENCH_REPS (default 200), BENCH_WARMUP (default 5), CC.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

REPS=${BENCH_REPS:-200}
WARMUP=${BENCH_WARMUP:-5}
bench_need_uint BENCH_REPS "$REPS"
bench_need_uint BENCH_WARMUP "$((WARMUP + 1))"
SHIM=${1:-$SRC_DIR/build/shim/dist-shim}
[ -x "$SHIM" ] || bench_die "dist-shim not found at $SHIM (build first, or pass its path)"
TRUE=/bin/true

bench_build_tools

# The step environment the shim reads when there is no PMIx; every command
# (bare included) runs with it, so the environments are the same size.
FAKE_STEP=(SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_LOCALID=0 SLURM_NODEID=0
	SLURM_STEP_NUM_NODES=1 SLURM_STEP_TASKS_PER_NODE=1 SLURM_STEP_NODELIST=localhost
	SLURM_JOB_ID=1 SLURM_STEP_ID=0 MASTER_ADDR=127.0.0.1)
# Nothing of a real step or PMIx launch may leak in (this may run inside a job).
UNSET=(MASTER_PORT PMIX_NAMESPACE PMIX_RANK PMIX_SERVER_URI4 PMIX_SERVER_URI41
	PMIX_SERVER_URI3 PMIX_SERVER_URI2 DIST_SHIM_MODE DIST_SHIM_ARGV0)
CLEAN_ENV=()
for v in "${UNSET[@]}"; do CLEAN_ENV+=(-u "$v"); done

# Check once, outside the timing, that the wrapped commands really succeed.
env "${CLEAN_ENV[@]}" "${FAKE_STEP[@]}" "$SHIM" --mode ddp -- /usr/bin/env |
	grep -q '^RANK=0$' || bench_die "$SHIM --mode ddp did not export RANK under the faked step"

CMDS=(bare "$TRUE")
if [ "$BENCH_HAVE_CC" = 1 ]; then
	CMDS+=(::: hop "$BENCH_TOOLS/hop" "$TRUE")
fi
CMDS+=(::: shim_none "$SHIM" --mode none -- "$TRUE"
	::: shim_ddp "$SHIM" --mode ddp -- "$TRUE")
# Attribution: the 1-line hop linked against the shim's libraries.
read -ra PMIX_LIBS <<<"$(pkg-config --libs pmix 2>/dev/null || echo -lpmix)"
if [ "$BENCH_HAVE_CC" = 1 ] &&
	printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv(v[1], v + 1); return 127; }\n' |
	"${CC:-cc}" -O2 -x c -o "$BENCH_TOOLS/hop_libs" - -Wl,--no-as-needed \
		"${PMIX_LIBS[@]}" -lslurm 2>/dev/null; then
	CMDS+=(::: hop_libs "$BENCH_TOOLS/hop_libs" "$TRUE")
fi

echo "== exec hop: $(nproc) cores, $REPS interleaved repetitions (+$WARMUP warm-up), shim $SHIM"
OUT=$(
	unset "${UNSET[@]}"
	export "${FAKE_STEP[@]}"
	bench_time "$REPS" "$WARMUP" "${CMDS[@]}"
)
awk '{ print "  raw: " $0 }' <<<"$OUT"
if grep -q '^hop ' <<<"$OUT"; then
	bench_compare exec_hop "exec hop (1-line exec wrapper)" "$OUT" bare hop bare hop
fi
bench_compare exec_hop "exec hop, shim(none)" "$OUT" bare shim_none bare "shim(none)"
bench_compare exec_hop "exec hop, shim(ddp, Slurm env)" "$OUT" bare shim_ddp bare "shim(ddp)"
if grep -q '^hop_libs ' <<<"$OUT"; then
	bench_compare exec_hop "exec hop, 1-line wrapper + libslurm/libpmix" "$OUT" bare hop_libs bare "hop+libs"
	# What the shim costs above one bare exec hop, and what it would cost
	# more if it loaded libslurm and libpmix on every exec (it loads them
	# through its modules, only where a path needs them).
	awk -v hop="$(bench_field "$OUT" hop median_ms)" -v libs="$(bench_field "$OUT" hop_libs median_ms)" \
		-v none="$(bench_field "$OUT" shim_none median_ms)" -v ddp="$(bench_field "$OUT" shim_ddp median_ms)" 'BEGIN {
		printf "  shim(none) above one exec hop: %+.2f ms; linking libslurm+libpmix (and their deps) would add: %+.2f ms\n", none - hop, libs - hop
		printf "  shim(ddp) above shim(none) (Slurm-env wire-up, interfaces, port check): %+.2f ms\n", ddp - none }'
fi

if command -v hyperfine >/dev/null; then
	echo "== hyperfine cross-check (NOT interleaved: each command's runs back to back)"
	CSV=$BENCH_TOOLS/hyperfine.csv
	env "${CLEAN_ENV[@]}" "${FAKE_STEP[@]}" hyperfine -N --style none --warmup "$WARMUP" \
		--runs "$REPS" --export-csv "$CSV" -n bare "$TRUE" \
		-n "shim(none)" "$SHIM --mode none -- $TRUE" \
		-n "shim(ddp)" "$SHIM --mode ddp -- $TRUE" >/dev/null 2>"$BENCH_TOOLS/hyperfine.err" ||
		{
			cat "$BENCH_TOOLS/hyperfine.err" >&2
			bench_die "hyperfine failed"
		}
	awk -F, 'NR == 2 { base = $4 } NR > 1 {
		printf "  hyperfine %-11s median %.2f ms, ratio %.2fx\n", $1, $4 * 1000, $4 / base }' "$CSV"
fi
