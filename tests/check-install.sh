#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the build into a scratch prefix and checks where everything lands.
set -euo pipefail
build=$1 libdir=$2 bindir=$3 mandir=$4 datadir=$5 version=$6 topology=$7
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
# The shim's modules (shim/base/module.h): each installed under <libdir>/slurm-dist,
# exporting its table only; the shim itself links none of their libraries.
for m in pmix pmi2 slurm hwloc verbs crypto doctor; do
	f=$prefix/$libdir/slurm-dist/dist-shim-$m.so
	[ -f "$f" ] || { echo "FAIL: $libdir/slurm-dist/dist-shim-$m.so not installed" >&2; exit 1; }
	exports=$(nm -D --defined-only "$f" | awk '{print $3}' | sort | tr '\n' ' ')
	want="dist_shim_module_$m "
	[ "$exports" = "$want" ] || { echo "FAIL: dist-shim-$m.so exports $exports" >&2; exit 1; }
done
# dist-shim-enter (core/dist_carry.h) beside them, static: it runs inside
# images that have none of the node's libraries.
enter=$prefix/$libdir/slurm-dist/dist-shim-enter
[ -x "$enter" ] || { echo "FAIL: $libdir/slurm-dist/dist-shim-enter not installed" >&2; exit 1; }
if objdump -p "$enter" | grep -q NEEDED; then
	echo "FAIL: dist-shim-enter is not static" >&2
	exit 1
fi
shim=$prefix/$bindir/dist-shim
needed=$(objdump -p "$shim" | awk '/NEEDED/ {print $2}' | tr '\n' ' ')
case $needed in
*pmix* | *pmi2* | *slurm* | *hwloc* | *ibverbs* | *crypto*)
	echo "FAIL: dist-shim links $needed" >&2
	exit 1
	;;
esac
# The installed shim loads a module from the install, not from the build tree.
"$shim" --explain --topology "$topology" --tasks 2 >"$prefix/plan" ||
	{ echo "FAIL: the installed shim cannot plan with its hwloc module" >&2; exit 1; }
grep -q "^local_rank" "$prefix/plan" || { echo "FAIL: no plan printed" >&2; exit 1; }
# A missing module, or one from another build: one line naming it, exit 1.
# refused CASE PATTERN: planning must fail, with a line of stderr matching PATTERN.
refused() {
	if "$shim" --explain --topology "$topology" --tasks 2 >/dev/null 2>"$prefix/err"; then
		echo "FAIL: planned with $1" >&2
		exit 1
	fi
	grep -q "$2" "$prefix/err" || { echo "FAIL: $1: $(cat "$prefix/err")" >&2; exit 1; }
}
mv "$prefix/$libdir/slurm-dist/dist-shim-hwloc.so" "$prefix/hwloc.so"
refused "no hwloc module" \
	"^dist-shim: error: .*: cannot load the shim's module dist-shim-hwloc.so (not in .*): reinstall slurm-dist\$"
cp "$prefix/$libdir/slurm-dist/dist-shim-verbs.so" "$prefix/$libdir/slurm-dist/dist-shim-hwloc.so"
refused "a wrong hwloc module" \
	"^dist-shim: error: .*: the shim's module .*dist-shim-hwloc.so is from another build (no table, not slurm-dist $version module ABI [0-9]*): reinstall slurm-dist\$"
mv "$prefix/hwloc.so" "$prefix/$libdir/slurm-dist/dist-shim-hwloc.so"
# Without /proc the shim cannot know its own directory: it looks for its
# modules only in the install's compiled-in directory, never relative to the
# working directory (a module planted there, here one from another build
# under hwloc's name, is not loaded). Needs a mount namespace; skipped without.
plant=$prefix/plant/here # not beside lib/: the relative place would find the real one
mkdir -p "$plant"
cp "$prefix/$libdir/slurm-dist/dist-shim-verbs.so" "$plant/dist-shim-hwloc.so"
noproc=
for u in "unshare -m" "unshare -rm"; do
	if $u sh -c 'mount -t tmpfs none /proc' 2>/dev/null; then noproc=$u; break; fi
done
if [ -n "$noproc" ]; then
	$noproc sh -c 'mount -t tmpfs none /proc && cd "$1" && shift && exec "$@"' sh "$plant" \
		"$shim" --explain --topology "$topology" --tasks 2 >/dev/null 2>"$prefix/err" &&
		rc=0 || rc=$?
	if grep -q "from another build" "$prefix/err" ||
		{ [ "$rc" != 0 ] && ! grep -q "no /proc to find the shim's own directory" "$prefix/err"; }; then
		echo "FAIL: without /proc the shim looked beside the working directory: $(cat "$prefix/err")" >&2
		exit 1
	fi
else
	echo "install layout: no mount namespace here, the check without /proc skipped"
fi
# --version names the project's version and the Slurm release.
"$prefix/$bindir/dist-shim" --version | grep -q "slurm-dist $version, built for Slurm [0-9]" ||
	{ echo "FAIL: dist-shim --version" >&2; exit 1; }
echo "install layout OK"
