#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The site route: dpkg-buildpackage -b from a copy of the tree gives a .deb
# whose version and dependency name this Slurm's release; installed, with
# its plugstack.conf.d snippet included from the cluster's plugstack.conf,
# an sbatch --dist-mode=ddp job trains from the installed files alone.
#
# Installed with dpkg -x into a scratch root under the cluster's directory,
# not dpkg -i: for 22.05 the run's files are this machine's own, and the
# root file systems of 24.11 and 26.05 are a cache other runs share. The
# snippet's paths are rewritten to that root (on a node they are /usr); the
# build's copies the cluster normally loads are moved away meanwhile.
source "$(dirname "$0")/lib.sh"

ROOT=$WORK/root
version=$(project_version)
release=$(slurm_release)
TMPDIR=$WORK bash "$SRC_DIR/contrib/package.sh" deb "$WORK/pkgs" >"$WORK/build.log" 2>&1 || {
	tail -n 40 "$WORK/build.log" >&2
	fail "dpkg-buildpackage -b failed"
}
deb=$(ls "$WORK"/pkgs/slurm-dist_*.deb)
[ "$(dpkg-deb -f "$deb" Version)" = "$version+slurm$release" ] ||
	fail "package version $(dpkg-deb -f "$deb" Version), expected $version+slurm$release"
dpkg-deb -f "$deb" Depends >"$WORK/depends"
assert_contains "$WORK/depends" " (>= $release~)"
grep -Eq "libslurm[0-9]+ \(>= $release~\)" "$WORK/depends" || fail "no dependency on this release's libslurm"
# Its dependencies are what this machine has: apt would install it as is.
apt-get install -s "$deb" >"$WORK/apt.out" 2>&1 || { cat "$WORK/apt.out" >&2; fail "apt-get install -s refused the package"; }
assert_contains "$WORK/apt.out" "Conf slurm-dist ($version+slurm$release"
dpkg-deb -c "$deb" | awk '{print $6}' >"$WORK/contents"
for f in usr/bin/dist-shim usr/share/man/man1/dist-shim.1.gz usr/share/man/man8/spank_dist.8.gz \
	usr/share/slurm-dist/plugstack.conf.d/spank_dist.conf \
	"usr/share/modulefiles/slurm-dist/$version" "usr/share/modulefiles/slurm-dist/$version.lua"; do
	assert_contains "$WORK/contents" "./$f"
done
grep -q '/slurm/spank_dist.so$' "$WORK/contents" || fail "no plugin in the package"

rm -rf "$ROOT" && dpkg -x "$deb" "$ROOT"
snippet=$ROOT/usr/share/slurm-dist/plugstack.conf.d/spank_dist.conf
for arg in shim= port_range=20000-31999 timeout=120; do
	grep -q "^#.*$arg" "$snippet" || fail "the snippet does not show '$arg' with its default"
done
assert_count "$snippet" '^required ' 1
mkdir -p "$WORK/plugstack.conf.d"
sed "/^required /{s| /usr/| $ROOT/usr/|; s|\$| shim=$ROOT/usr/bin/dist-shim port_range=24000-24999|}" \
	"$snippet" >"$WORK/plugstack.conf.d/spank_dist.conf"
"$ROOT/usr/bin/dist-shim" --version >"$WORK/version.out"
assert_contains "$WORK/version.out" "slurm-dist $version, built for Slurm $release."

cp "$TC_DIR/plugstack.conf" "$WORK/good.plugstack"
restore() {
	cp "$WORK/good.plugstack" "$TC_DIR/plugstack.conf"
	[ ! -d "$TC_DIR/stage.off" ] || mv "$TC_DIR/stage.off" "$TC_DIR/stage"
	restart_all_slurmd
}
trap restore EXIT
mv "$TC_DIR/stage" "$TC_DIR/stage.off"
# The admin's one line, as docs/admin.md shows it.
echo "include $WORK/plugstack.conf.d/*.conf" >"$TC_DIR/plugstack.conf"
lines=$(wc -l <"$TC_DIR/log/slurmd.tcn1.log")
restart_all_slurmd
tail -n +"$((lines + 1))" "$TC_DIR/log/slurmd.tcn1.log" >"$WORK/slurmd.log"
assert_contains "$WORK/slurmd.log" "dist: slurm-dist $version, built for Slurm $release."
srun --help >"$WORK/help.out" 2>&1 || true
assert_contains "$WORK/help.out" "slurm-dist $version, built for Slurm $release."

cat >job.sh <<JOB
#!/bin/bash
#SBATCH --dist-mode=ddp -N 3 --ntasks-per-node=2
srun $PY $TRAIN
JOB
run_sbatch "$WORK/job.out" job.sh
[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/job.out" >&2; fail "job ended $JOB_STATE"; }
assert_ddp_ok "$WORK/job.out" 6
echo "package: $(basename "$deb") built, installed under $ROOT and trained across 3 nodes"
