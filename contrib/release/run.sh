#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh RELEASE — builds slurm-dist and runs the whole test suite against one
# Slurm release (22.05, 24.11 or 26.05). The host's own release runs on the
# host's files; the others in a root file system of their Debian suite
# (rootfs.sh). Either way the run gets new PID, network, mount and UTS
# namespaces: its test cluster can neither see nor disturb another run's (or
# the host's), and every process it started ends with it.
#   BUILD_DIR    build directory (default: build on the host's files, /build
#                in a release's root file system)
#   TC_DIR       the test cluster's directory (testcluster.sh)
#   CTEST_ARGS   extra ctest arguments, e.g. "-R unit"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# shellcheck source=contrib/release/releases.sh
. "$here/releases.sh"

[ "$#" -eq 1 ] || die "usage: $0 RELEASE (one of ${DIST_RELEASES[*]})"
release=$1
suite=$(release_suite "$release")
[ -n "$suite" ] || die "unknown Slurm release '$release' (one of ${DIST_RELEASES[*]})"
[ "$(id -u)" -eq 0 ] || die "must run as root (namespaces, pivot_root, the test cluster)"

if [ "$suite" = "$(host_suite)" ]; then
	bash "$src/contrib/install-deps.sh"
	root=/
	tree=$src
	build=${BUILD_DIR:-build}
else
	root=$(bash "$here/rootfs.sh" "$suite")
	tree=/src
	build=${BUILD_DIR:-/build}
fi

# Inside the namespaces: a /proc for the new PID namespace, a private /run
# (munged's socket, network namespace handles), and for a release's root
# file system /sys, /dev and the source tree at /src; then pivot_root into it.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='
set -euo pipefail
root=$1 src=$2 tree=$3 release=$4
if [ "$root" != / ]; then
	# A mount point of its own: tools that remount "/" (ip -n NS) need one.
	mount --bind "$root" "$root"
	mount --rbind /sys "$root/sys"
	mount --rbind /dev "$root/dev"
	mkdir -p "$root/src"
	mount --bind "$src" "$root/src"
fi
mount -t proc proc "$root/proc"
mount -t tmpfs -o mode=0755 tmpfs "$root/run"
ip link set lo up
hostname localhost
if [ "$root" != / ]; then
	# pivot_root, not chroot: the root file system becomes the root of this
	# mount namespace. A process that joins a mount namespace made from it
	# (setns: job_container/tmpfs, runc) gets that namespace'"'"'s root; in a
	# chroot it would land in the host'"'"'s file system.
	cd "$root"
	pivot_root . .
	umount -l .
	cd /
fi
exec /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	BUILD_DIR="$BUILD_DIR" CTEST_ARGS="${CTEST_ARGS:-}" CI="${CI:-}" \
	${TC_DIR:+TC_DIR="$TC_DIR"} \
	bash "$tree/contrib/release/test-here.sh" "$release"
'
log "Slurm $release: $([ "$root" = / ] && echo "this machine's" || echo "the $suite root file system $root"), in its own namespaces"
export BUILD_DIR=$build
exec unshare --pid --fork --net --mount --uts --propagation private -- \
	bash -c "$inner" inner "$root" "$src" "$tree" "$release"
