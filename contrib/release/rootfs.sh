#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rootfs.sh SUITE — prints the path of a Debian SUITE root file system with
# everything slurm-dist needs to build and test (contrib/install-deps.sh
# --list), building it with mmdebstrap from Debian's default mirror when it
# is missing or was made from another package list. Run as root.
#   DIST_ROOTFS_CACHE   where root file systems are kept
#                       (default /var/cache/slurm-dist/rootfs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${DIST_ROOTFS_CACHE:-/var/cache/slurm-dist/rootfs}

LOG_PREFIX=rootfs
# shellcheck source=contrib/release/releases.sh
. "$here/releases.sh"

[ "$#" -eq 1 ] || die "usage: $0 SUITE"
suite=$1
case $suite in
trixie | forky | bookworm) ;;
*) die "unknown suite '$suite' (bookworm, trixie or forky)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found (run contrib/install-deps.sh)"

mapfile -t packages < <(bash "$here/../install-deps.sh" --list "$suite")
# The stamp changes with the package list, or with FORMAT when what this
# script puts in a root file system changes (not for every edit of it).
readonly FORMAT=1
stamp=$({
	echo "format $FORMAT"
	printf '%s\n' "${packages[@]}"
} | sha256sum | cut -c1-16)
root=$cache/$suite
if [ -f "$root/.slurm-dist-stamp" ] && [ "$(cat "$root/.slurm-dist-stamp")" = "$stamp" ]; then
	echo "$root"
	exit 0
fi

mkdir -p "$cache"
# One build of a suite at a time: runs started together wait for the first.
exec 9>"$cache/$suite.lock"
flock 9
if [ -f "$root/.slurm-dist-stamp" ] && [ "$(cat "$root/.slurm-dist-stamp")" = "$stamp" ]; then
	echo "$root"
	exit 0
fi

# What an interrupted build left: unmount what it mounted inside (/proc,
# /sys, /dev) before removing anything, and never cross into another file
# system while removing.
remove_tree() {
	local m
	[ -e "$1" ] || return 0
	awk -v d="$1/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r |
		while read -r m; do umount -l "$m" || true; done
	if awk -v d="$1/" 'index($5, d) == 1 {found = 1} END {exit !found}' /proc/self/mountinfo; then
		die "$1 still has mounts inside; not removing it"
	fi
	rm -rf --one-file-system "$1"
}

log "building a $suite root file system in $root (a few minutes)"
remove_tree "$root.new"
start=$SECONDS
# forky's Release file may be past its Valid-Until date.
# Documentation and translations are left out: nothing here reads them.
if ! mmdebstrap --variant=apt --quiet \
	--aptopt='Acquire::Check-Valid-Until "false"' \
	--aptopt='Acquire::Retries "3"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--include="$(
		IFS=,
		echo "${packages[*]}"
	)" \
	"$suite" "$root.new" >&2; then
	remove_tree "$root.new"
	die "mmdebstrap $suite failed (is Debian's archive reachable?)"
fi
# Inside the test network nothing answers DNS: let lookups fail at once
# rather than wait for a server that cannot be reached.
echo "nameserver 127.0.0.1" >"$root.new/etc/resolv.conf"
echo "$stamp" >"$root.new/.slurm-dist-stamp"
remove_tree "$root"
mv "$root.new" "$root"
log "$suite ready in $((SECONDS - start)) s"
echo "$root"
