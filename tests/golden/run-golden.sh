#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compares what golden-env prints for a recorded world with its golden file.
# With UPDATE_GOLDEN=1 it rewrites the golden file instead (review the diff).
set -euo pipefail
tool=$1 mode=$2 world=$3 golden=$4
actual=$("$tool" "$mode" "$world")
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	printf '%s\n' "$actual" >"$golden"
	exit 0
fi
diff -u "$golden" <(printf '%s\n' "$actual")
