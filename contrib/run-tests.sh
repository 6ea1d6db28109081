#!/bin/bash
# The whole test suite, from a fresh Debian 12 machine (as root): installs
# what is needed, builds with the tests, and runs unit, golden and
# integration tests (the latter on a local multi-node Slurm cluster).
#   BUILD_DIR   build directory (default: build)
#   CTEST_ARGS  extra ctest arguments, e.g. "-R unit"
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}

bash contrib/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON
cmake --build "$build" -j"$(nproc)"
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure ${CTEST_ARGS:-}
