#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs, from Debian's packages, everything slurm-dist needs to build, to
# run its tests and to bring up the local test cluster. Run as root.
#   install-deps.sh          install what is missing on this machine
#   install-deps.sh --list SUITE
#                            print the packages a test root file system of
#                            that Debian suite needs (contrib/release/rootfs.sh)
set -euo pipefail

packages=(
	# build
	cmake gcc make pkg-config
	libslurm-dev libpmix-dev libpmi2-0-dev libhwloc-dev libibverbs-dev libcmocka-dev libjansson-dev libssl-dev
	# local test cluster
	slurm-wlm slurmctld slurmd slurm-client munge iproute2 util-linux mount procps
	# real clients used by the integration tests
	python3 python3-torch python3-numpy python3-mpi4py openmpi-bin libopenmpi-dev
	# MPICH beside Open MPI (Open MPI stays the default mpirun and mpicc)
	mpich libmpich-dev
	# ssh-based launchers: an sshd on every test node, pdsh
	openssh-server openssh-client pdsh
	# a container runtime started by the step (Charliecloud)
	charliecloud-runtime
	# fault injection (a node that drops the training ports)
	nftables
	# packages built from the tree (debian/, an RPM spec)
	debhelper dpkg-dev fakeroot rpm
)
# What only some suites have or need. Debian's lmod and environment-modules
# conflict: each module system is tested in its own suite.
suite_packages() {
	case $1 in
	bookworm) echo lmod ;;
	trixie) echo environment-modules ;;
	forky) echo lmod python3-accelerate ;;
	*)
		echo "install-deps: error: unknown suite '$1' (bookworm, trixie or forky)" >&2
		return 1
		;;
	esac
}
# Only on the machine that runs the suite: it builds the other releases' root
# file systems.
host_packages=(mmdebstrap)

if [ "${1:-}" = --list ]; then
	[ "$#" -eq 2 ] || {
		echo "install-deps: usage: $0 --list SUITE" >&2
		exit 2
	}
	extra=$(suite_packages "$2")
	printf '%s\n' "${packages[@]}" $extra
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: error: run as root (it calls apt-get)" >&2
	exit 1
fi

. /etc/os-release
read -ra extra <<<"$(suite_packages "${VERSION_CODENAME:-unknown}")"
missing=()
for p in "${packages[@]}" "${extra[@]}" "${host_packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all packages already installed"
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
