#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# package.sh deb|rpm [OUTDIR] — builds slurm-dist's binary packages for the
# Slurm this machine has (libslurm-dev / slurm-devel), from a copy of the
# tree (dpkg-buildpackage writes beside the tree it builds), into OUTDIR
# (default: ./packages). Nothing is downloaded.
#   deb: dpkg-buildpackage -b (debian/); needs debhelper, dpkg-dev, fakeroot
#   rpm: rpmbuild -bb (rpm/slurm-dist.spec); on Debian, whose rpm database
#        knows none of the build dependencies, with --nodeps
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-}
out=${2:-$PWD/packages}
case $kind in
deb | rpm) ;;
*)
	echo "usage: $0 deb|rpm [OUTDIR]" >&2
	exit 2
	;;
esac
version=$(sed -n 's/^project(slurm-dist VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-dist-pkg.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out" "$work/slurm-dist-$version"
# The tree without build directories or git's files.
tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.git --exclude=./packages \
	-cf - . | tar -C "$work/slurm-dist-$version" -xf -

# debian/control's Build-Depends, each installed (debhelper-compat is debhelper's).
check_build_depends() {
	local pkg missing=
	for pkg in $(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$src/debian/control" | sed '$d' |
		sed 's/^Build-Depends://; s/([^)]*)//g; s/|[^,]*//g' | tr ',' '\n'); do
		[ "$pkg" = debhelper-compat ] && pkg=debhelper
		dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing="$missing $pkg"
	done
	[ -z "$missing" ] || {
		echo "package.sh: missing build dependencies:$missing" >&2
		exit 1
	}
}

if [ "$kind" = deb ]; then
	check=
	# dpkg-buildpackage also wants the build-essential package itself, which a
	# machine with gcc, make and libc6-dev may lack (the test root file
	# systems of contrib/release): then Build-Depends are checked here.
	if ! dpkg-query -W -f '${Status}' build-essential 2>/dev/null | grep -q 'ok installed'; then
		check_build_depends
		echo "package.sh: build-essential is not installed; Build-Depends checked, building with -d" >&2
		check=-d
	fi
	# shellcheck disable=SC2086 # check is empty or one word
	(cd "$work/slurm-dist-$version" &&
		DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -b -us -uc $check)
	cp "$work"/*.deb "$out"/
else
	nodeps=
	rpm -q rpm >/dev/null 2>&1 || nodeps=--nodeps # rpm's database is not the system's
	mkdir -p "$work/rpm/SOURCES"
	tar -C "$work" -czf "$work/rpm/SOURCES/slurm-dist-$version.tar.gz" "slurm-dist-$version"
	# shellcheck disable=SC2086 # nodeps is empty or one word
	rpmbuild -bb $nodeps --define "_topdir $work/rpm" \
		${DIST_RPM_NO_DEBUGINFO:+--define "debug_package %{nil}"} \
		"$src/rpm/slurm-dist.spec"
	find "$work/rpm/RPMS" -name '*.rpm' -exec cp {} "$out"/ \;
fi
ls "$out"
