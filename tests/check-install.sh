#!/bin/bash
# Installs the build into a scratch prefix and checks where everything lands.
set -euo pipefail
build=$1 libdir=$2 bindir=$3 mandir=$4 datadir=$5 version=$6
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in "$libdir/slurm/spank_dist.so" "$bindir/dist-shim" "$mandir/man1/dist-shim.1" \
	"$mandir/man8/spank_dist.8" "$datadir/slurm-dist/plugstack.conf.d/spank_dist.conf" \
	"$datadir/modulefiles/slurm-dist/$version" "$datadir/modulefiles/slurm-dist/$version.lua"; do
	[ -f "$prefix/$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
[ -x "$prefix/$bindir/dist-shim" ] || { echo "FAIL: dist-shim not executable" >&2; exit 1; }
# Only Slurm's entry points are exported from the plugin.
extra=$(nm -D --defined-only "$prefix/$libdir/slurm/spank_dist.so" | awk '{print $3}' |
	grep -Ev '^(slurm_spank_|plugin_|spank_plugin_)' || true)
[ -z "$extra" ] || { echo "FAIL: plugin exports $extra" >&2; exit 1; }
# The snippet loads the plugin where it was installed.
grep -q "^required .*/$libdir/slurm/spank_dist.so\$" \
	"$prefix/$datadir/slurm-dist/plugstack.conf.d/spank_dist.conf" ||
	{ echo "FAIL: the snippet's required line does not name the plugin" >&2; exit 1; }
head -n 1 "$prefix/$datadir/modulefiles/slurm-dist/$version" | grep -q '^#%Module' ||
	{ echo "FAIL: the Tcl modulefile lacks its #%Module line" >&2; exit 1; }
# --version names the project's version and the Slurm release.
"$prefix/$bindir/dist-shim" --version | grep -q "slurm-dist $version, built for Slurm [0-9]" ||
	{ echo "FAIL: dist-shim --version" >&2; exit 1; }
echo "install layout OK"
