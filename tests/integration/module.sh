#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The route for users of a shared system whose admin has not enabled the
# plugin: the modulefiles of `cmake --install` (as the packages install them,
# under <prefix>/share/modulefiles/slurm-dist/<version>) with the real tool
# this release's Debian has: Lmod on 22.05 and 26.05 (both the Lua and the
# Tcl file), Environment Modules on 24.11 (the Tcl file; Debian's lmod and
# environment-modules conflict, so each root file system has one). In a
# fresh login shell, on a cluster whose plugstack.conf does not load the
# plugin: module load, then srun ... dist-shim --mode ddp trains across the
# nodes; module unload gives the environment back.
#   $1  the build directory
source "$(dirname "$0")/lib.sh"

BUILD=${1:?usage: module.sh BUILD_DIR}
PREFIX=$WORK/prefix
version=$(project_version)
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null || fail "cmake --install failed"
MODULES=$PREFIX/share/modulefiles
[ -f "$MODULES/slurm-dist/$version" ] && [ -f "$MODULES/slurm-dist/$version.lua" ] ||
	fail "modulefiles not installed under $MODULES/slurm-dist"
if [ -r /usr/share/lmod/lmod/init/profile ]; then
	tool=lmod
elif [ -r /usr/share/modules/init/bash ]; then
	tool=modules
else
	fail "neither Lmod nor Environment Modules installed (contrib/install-deps.sh)"
fi

# The Tcl file alone, in a tree of its own (the modulefile finds the
# install's root from its own path), for Lmod to read it too.
TCLROOT=$WORK/tclroot
mkdir -p "$TCLROOT/share/modulefiles/slurm-dist"
cp "$MODULES/slurm-dist/$version" "$TCLROOT/share/modulefiles/slurm-dist/"
ln -s "$PREFIX/bin" "$TCLROOT/bin"
ln -s "$PREFIX/share/man" "$TCLROOT/share/man"

# The cluster without the plugin, for srun and every slurmstepd (which read
# plugstack.conf at each step); put back at the end.
cp "$TC_DIR/plugstack.conf" "$WORK/good.plugstack"
trap 'cp "$WORK/good.plugstack" "$TC_DIR/plugstack.conf"' EXIT
: >"$TC_DIR/plugstack.conf"
srun --help >"$WORK/help.out" 2>&1 || true
assert_not_contains "$WORK/help.out" "--dist-mode"

# Runs a script in a fresh login shell (what /etc/profile.d gives it: the
# module command), with only what a user's session would have.
login_shell() {
	local name=$1
	shift
	RC=0
	env -i HOME="$WORK" USER=root LOGNAME=root PATH=/usr/local/bin:/usr/bin:/bin \
		SLURM_CONF="$SLURM_CONF" USE_LIBUV=0 \
		timeout 300 bash -l -c "$1" >"$WORK/$name.out" 2>"$WORK/$name.err" || RC=$?
}

# PATH, MANPATH and the module's own variables. Lmod writes an unchanged
# MANPATH back with one more trailing ':' and Environment Modules leaves an
# empty one where there was none: an empty element, an empty and an unset
# MANPATH all mean man's default path, so runs of ':' count as one and an
# empty MANPATH as none.
# shellcheck disable=SC2016 # expanded in the login shell
snapshot='env | grep -E "^(PATH|MANPATH|SLURM_DIST_[A-Z_]*)=" | sed -E "s/:+/:/g; s/:$//" | grep -v "^MANPATH=$" | sort'

# shellcheck disable=SC2016
check_module() {
	local name=$1 modpath=$2 root=$3 train=$4
	login_shell "$name" "
		set -e
		type module >/dev/null
		module use $modpath
		$snapshot >$WORK/$name.before
		module load slurm-dist
		echo \"shim=\$(command -v dist-shim)\"
		echo \"MANPATH=\$MANPATH\"
		echo \"root=\$SLURM_DIST_ROOT\"
		dist-shim --version
		if [ $train = yes ]; then
			srun --mpi=$XMPI -N3 --ntasks-per-node=2 dist-shim --mode ddp \
				--port-range 24000-24999 -- $PY $TRAIN >$WORK/$name.train
		fi
		module unload slurm-dist
		$snapshot >$WORK/$name.after
	"
	[ "$RC" -eq 0 ] || { cat "$WORK/$name.out" "$WORK/$name.err" >&2; fail "$name: the login shell exited $RC"; }
	assert_contains "$WORK/$name.out" "shim=$root/bin/dist-shim"
	assert_contains "$WORK/$name.out" "MANPATH=$root/share/man"
	# ... and man's default path with it (an empty element).
	grep '^MANPATH=' "$WORK/$name.out" | grep -Eq '(^MANPATH=:|::|:$)' ||
		fail "$name: the loaded MANPATH lost man's default path"
	assert_contains "$WORK/$name.out" "root=$root"
	assert_contains "$WORK/$name.out" "slurm-dist $version, built for Slurm $(slurm_release)."
	diff "$WORK/$name.before" "$WORK/$name.after" >&2 || fail "$name: module unload left the environment changed"
	[ "$train" = no ] || assert_ddp_ok "$WORK/$name.train" 6
}

if [ "$tool" = lmod ]; then
	check_module lmod_lua "$MODULES" "$PREFIX" yes
	check_module lmod_tcl "$TCLROOT/share/modulefiles" "$TCLROOT" no
else
	check_module modules_tcl "$MODULES" "$PREFIX" yes
fi
echo "module: $tool loaded slurm-dist/$version; trained across 3 nodes without the plugin"
