# SPDX-License-Identifier: GPL-2.0-or-later
# The supported Slurm releases and the Debian suite that ships each; sourced
# by the scripts beside it.
# shellcheck shell=bash
readonly DIST_RELEASES=(22.05 24.11 26.05)

# Debian suite of a Slurm release, or nothing for an unknown one.
release_suite() {
	case $1 in
	22.05) echo bookworm ;;
	24.11) echo trixie ;;
	26.05) echo forky ;;
	esac
}

# Messages prefixed with the script's LOG_PREFIX; die ends it.
log() { echo "${LOG_PREFIX:-release}: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# Debian suite of this machine.
host_suite() {
	# shellcheck disable=SC1091
	(. /etc/os-release && echo "${VERSION_CODENAME:-}")
}
