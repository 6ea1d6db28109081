#!/bin/bash
# Installs the build into a scratch prefix and checks where everything lands.
set -euo pipefail
build=$1 libdir=$2 bindir=$3 mandir=$4
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in "$libdir/slurm/spank_dist.so" "$bindir/dist-shim" "$mandir/man1/dist-shim.1" \
	"$mandir/man8/spank_dist.8"; do
	[ -f "$prefix/$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
[ -x "$prefix/$bindir/dist-shim" ] || { echo "FAIL: dist-shim not executable" >&2; exit 1; }
# Only Slurm's entry points are exported from the plugin.
extra=$(nm -D --defined-only "$prefix/$libdir/slurm/spank_dist.so" | awk '{print $3}' |
	grep -Ev '^(slurm_spank_|plugin_|spank_plugin_)' || true)
[ -z "$extra" ] || { echo "FAIL: plugin exports $extra" >&2; exit 1; }
echo "install layout OK"
