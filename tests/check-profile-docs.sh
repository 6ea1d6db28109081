#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The variable tables in docs/moving-from-*.md are generated from the profile
# tables in core/dist_profile.c (tools/profile-doc); this fails when a page
# and the code disagree. UPDATE_DOCS=1 rewrites the pages' blocks instead.
#   check-profile-docs.sh PROFILE_DOC_TOOL DOCS_DIR
set -euo pipefail
tool=$1 docs=$2
status=0
for page in "$docs"/moving-from-*.md; do
	name=$(sed -n 's/^<!-- profile-doc \([a-z]*\) -->$/\1/p' "$page")
	[ -n "$name" ] || { echo "FAIL: $page has no '<!-- profile-doc NAME -->' block" >&2; exit 1; }
	generated=$("$tool" "$name")
	current=$(sed -n '/^<!-- profile-doc [a-z]* -->$/,/^<!-- end profile-doc -->$/p' "$page" | sed '1d;$d')
	if [ "${UPDATE_DOCS:-0}" = 1 ]; then
		awk -v gen="$generated" '
			/^<!-- profile-doc [a-z]* -->$/ { print; print gen; skip = 1; next }
			/^<!-- end profile-doc -->$/ { skip = 0 }
			!skip' "$page" >"$page.new" && mv "$page.new" "$page"
	elif [ "$generated" != "$current" ]; then
		echo "FAIL: $page differs from 'profile-doc $name':" >&2
		diff <(printf '%s\n' "$current") <(printf '%s\n' "$generated") >&2 || true
		status=1
	fi
done
exit $status
