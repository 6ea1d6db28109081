#!/bin/bash
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

if [ "$kind" = deb ]; then
	(cd "$work/slurm-dist-$version" &&
		DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" dpkg-buildpackage -b -us -uc)
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
