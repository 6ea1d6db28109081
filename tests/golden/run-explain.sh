#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compares `dist-shim --explain ARGS` (ARGS from CASE.args, relative to this
# directory) with CASE.out. UPDATE_GOLDEN=1 rewrites CASE.out instead.
set -euo pipefail
shim=$1 case=$2
cd "$(dirname "$0")"
read -r -a args <"explain/$case.args"
actual=$("$shim" --explain "${args[@]}")
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	printf '%s\n' "$actual" >"explain/$case.out"
	exit 0
fi
diff -u "explain/$case.out" <(printf '%s\n' "$actual")
