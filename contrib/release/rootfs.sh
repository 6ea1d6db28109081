#!/bin/bash
# rootfs.sh SUITE — prints the path of a Debian SUITE root file system with
# everything slurm-dist needs to build and test (contrib/install-deps.sh
# --list), building it with mmdebstrap from Debian's default mirror when it
# is missing or was made from another package list. Run as root.
#   DIST_ROOTFS_CACHE   where root file systems are kept
#                       (default /var/cache/slurm-dist/rootfs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${DIST_ROOTFS_CACHE:-/var/cache/slurm-dist/rootfs}

log() { echo "rootfs: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

[ "$#" -eq 1 ] || die "usage: $0 SUITE"
suite=$1
case $suite in
trixie | forky | bookworm) ;;
*) die "unknown suite '$suite' (bookworm, trixie or forky)" ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found (run contrib/install-deps.sh)"

mapfile -t packages < <(bash "$here/../install-deps.sh" --list)
# The stamp changes when the package list or this script does.
stamp=$(cat "$here/../install-deps.sh" "$0" | sha256sum | cut -c1-16)
root=$cache/$suite
if [ -f "$root/.slurm-dist-stamp" ] && [ "$(cat "$root/.slurm-dist-stamp")" = "$stamp" ]; then
	echo "$root"
	exit 0
fi

log "building a $suite root file system in $root (a few minutes)"
mkdir -p "$cache"
rm -rf "$root.new"
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
	rm -rf "$root.new"
	die "mmdebstrap $suite failed (is Debian's archive reachable?)"
fi
# Inside the test network nothing answers DNS: let lookups fail at once
# rather than wait for a server that cannot be reached.
echo "nameserver 127.0.0.1" >"$root.new/etc/resolv.conf"
echo "$stamp" >"$root.new/.slurm-dist-stamp"
rm -rf "$root"
mv "$root.new" "$root"
log "$suite ready in $((SECONDS - start)) s"
echo "$root"
