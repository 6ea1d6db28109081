#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# test-here.sh RELEASE — on a machine (or root file system) whose Slurm is
# RELEASE and which has what contrib/install-deps.sh installs: builds with the
# tests and runs them all with ctest. contrib/release/run.sh calls it inside
# the run's own namespaces.
#   BUILD_DIR    build directory (default: build)
#   CTEST_ARGS   extra ctest arguments, e.g. "-R unit"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."

release=${1:?usage: $0 RELEASE}
have=$(slurmd -V 2>/dev/null | awk '{print $2}')
case $have in
"$release".*) ;;
*)
	echo "test-here: error: this machine has Slurm '${have:-none}', not $release" >&2
	exit 1
	;;
esac

build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON
cmake --build "$build" -j"$(nproc)"
echo "test-here: Slurm $have; $(mpirun --version 2>/dev/null | head -n 1);" \
	"torch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)"
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure ${CTEST_ARGS:-}
