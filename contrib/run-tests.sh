#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The whole test suite on every supported Slurm release, from a fresh Debian
# 12 machine (as root): installs what is needed, then for each release builds
# with the tests and runs unit, golden and integration tests (the latter on a
# local multi-node Slurm cluster of that release). 22.05 runs on this
# machine's packages; 24.11 and 26.05 in Debian trixie and forky root file
# systems (built with mmdebstrap on first use, then cached).
#   RELEASES     the releases to test (default: 22.05 24.11 26.05)
#   CTEST_ARGS   extra ctest arguments, e.g. "-R unit"
#   BUILD_DIR    build directory of the 22.05 run (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=contrib/release/releases.sh
. contrib/release/releases.sh

bash contrib/install-deps.sh
read -r -a releases <<<"${RELEASES:-${DIST_RELEASES[*]}}"
summary=()
passed=0 failed=0 bad=0
for release in "${releases[@]}"; do
	log=$(mktemp)
	start=$SECONDS
	rc=0
	bash contrib/release/run.sh "$release" 2>&1 | tee "$log" || rc=$?
	took=$((SECONDS - start))
	# ctest's own closing line: "NN% tests passed, F tests failed out of T".
	counts=$(sed -n 's/^[0-9]*% tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\)$/\1 \2/p' "$log" | tail -n 1)
	rm -f "$log"
	if [ -n "$counts" ]; then
		read -r f t <<<"$counts"
		passed=$((passed + t - f))
		failed=$((failed + f))
		summary+=("Slurm $release: $((t - f)) passed, $f failed, ${took} s")
	else
		summary+=("Slurm $release: did not get to run its tests (exit $rc), ${took} s")
	fi
	[ "$rc" -eq 0 ] || bad=1
done
echo
echo "=== slurm-dist test suite, per release"
printf '%s\n' "${summary[@]}"
echo "total: $passed passed, $failed failed"
exit "$bad"
