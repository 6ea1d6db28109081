#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# testcluster.sh — a real multi-node Slurm 22.05 cluster on one machine, for the
# integration tests of slurm-dist.
#
#   testcluster.sh up       build everything, start munged, slurmctld and N slurmd
#   testcluster.sh down     stop what `up` started and remove its namespaces and links
#   testcluster.sh status   sinfo (and squeue) of the test cluster
#   testcluster.sh env      `export` lines for: eval "$(testcluster.sh env)"
#   testcluster.sh restart-slurmd K [CONF]
#                           stops node K's slurmd and starts it again (with
#                           slurm.conf CONF if given); exits 1 if it does not start
#
# Topology: a bridge tcbr0 (10.77.0.254/24) in the host network namespace where
# slurmctld and the clients (srun, sbatch) run; one network namespace per node
# tcnK (10.77.0.K/24) with an interface name that differs between nodes and a
# docker0 bridge whose address (172.17.0.1/16) is the same on every node. Node
# names do not resolve. Together these catch the classic master-address mistakes
# (hostname lookups, loopback, "first interface", docker0).
#
# Needs root, iproute2, util-linux (nsenter, unshare), munge and Slurm 22.05
# (contrib/install-deps.sh). No systemd and no cgroups are needed.
set -euo pipefail

TC_DIR=${TC_DIR:-/var/lib/slurm-dist-tc}
TC_NODES=${TC_NODES:-3}
TC_PLUGIN=${TC_PLUGIN:-}
TC_PLUGIN_ARGS=${TC_PLUGIN_ARGS:-}
TC_SHIM=${TC_SHIM:-}
TC_TIMEOUT=${TC_TIMEOUT:-60}
TC_KEEP_ON_FAILURE=${TC_KEEP_ON_FAILURE:-0}
# How the nodes are configured, as sites do it (README.md, "Profiles"):
#   plain         proctrack/linuxproc, task/none, no job container (default)
#   jobcontainer  plain + a per-job private /tmp and /dev/shm: job_container/tmpfs
#                 (namespace/tmpfs from 26.05), PrologFlags=Contain, per-node BasePath
#   cgroup        proctrack/cgroup, task/cgroup,task/affinity, ConstrainCores and
#                 ConstrainDevices (cgroup v1), nodes with this machine's CPUs
TC_PROFILE=${TC_PROFILE:-plain}
# jobcontainer on 24.11+: 1 adds SlurmdParameters=contain_spank.
TC_CONTAIN_SPANK=${TC_CONTAIN_SPANK:-0}
# 1: every node also runs an sshd on its address, and root's ssh reaches
# every node by name or address with a key made here (ssh-based MPI
# launchers, pdsh). Needs openssh-server; writes the client's settings to
# /etc/ssh/ssh_config.d/slurm-dist-tc.conf (removed by `down`), the one
# file outside TC_DIR, as a site's configuration would.
TC_SSHD=${TC_SSHD:-0}
readonly SSH_CLIENT_CONF=/etc/ssh/ssh_config.d/slurm-dist-tc.conf

readonly BRIDGE=tcbr0
readonly NET=10.77.0
readonly CTL_ADDR=$NET.254
readonly CTL_HOST=tcctl
readonly NETNS_PREFIX=tc-
# Interface names of the node end of each veth, cycled over the nodes: real
# sites do not all call their NIC eth0.
readonly IFNAMES=(eth0 ens5 enp1s0)
readonly MUNGE_SOCKET=/run/munge/munge.socket.2
readonly MUNGE_PIDFILE=/run/munge/munged.pid

CONF=$TC_DIR/slurm.conf
SELF=$(readlink -f "$0")
RUN=$TC_DIR/run

log() { echo "testcluster: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

node_name() { echo "tcn$1"; }

# This Slurm's release (from slurmd) is $1 (e.g. 24.11) or later.
slurm_release() { slurmd -V 2>/dev/null | awk '{print $2}'; }
slurm_at_least() {
	local have
	have=$(slurm_release)
	[ -n "$have" ] && [ "$(printf '%s\n%s\n' "$1" "$have" | sort -V | head -n 1)" = "$1" ]
}
node_ifname() { echo "${IFNAMES[$((($1 - 1) % ${#IFNAMES[@]}))]}"; }

check_config() {
	[ "$(id -u)" -eq 0 ] || die "must run as root (namespaces, bridge, daemons)"
	case $TC_DIR in
	/*) ;;
	*) die "TC_DIR must be an absolute path: $TC_DIR" ;;
	esac
	# Node namespaces get a private /tmp: anything under /tmp would not be the
	# same file on every node.
	case $TC_DIR/ in
	/tmp/*) die "TC_DIR must not be under /tmp (each node has its own /tmp): $TC_DIR" ;;
	esac
	if ! [[ $TC_NODES =~ ^[0-9]+$ ]] || [ "$TC_NODES" -lt 1 ] || [ "$TC_NODES" -gt 200 ]; then
		die "TC_NODES must be a number between 1 and 200: $TC_NODES"
	fi
	case $TC_PROFILE in
	plain | jobcontainer | cgroup) ;;
	*) die "TC_PROFILE must be plain, jobcontainer or cgroup: $TC_PROFILE" ;;
	esac
	case $TC_CONTAIN_SPANK in
	0) ;;
	1)
		[ "$TC_PROFILE" = jobcontainer ] || die "TC_CONTAIN_SPANK=1 needs TC_PROFILE=jobcontainer"
		slurm_at_least 24.11 || die "TC_CONTAIN_SPANK=1 needs Slurm 24.11 or later (contain_spank)"
		;;
	*) die "TC_CONTAIN_SPANK must be 0 or 1: $TC_CONTAIN_SPANK" ;;
	esac
	case $TC_SSHD in
	0) ;;
	1)
		[ -x /usr/sbin/sshd ] && command -v ssh-keygen >/dev/null ||
			die "TC_SSHD=1 needs openssh-server (run contrib/install-deps.sh)"
		[ -d "$(dirname "$SSH_CLIENT_CONF")" ] || die "TC_SSHD=1 needs $(dirname "$SSH_CLIENT_CONF") (openssh-client)"
		;;
	*) die "TC_SSHD must be 0 or 1: $TC_SSHD" ;;
	esac
	if [ -n "$TC_PLUGIN" ] && [ ! -f "$TC_PLUGIN" ]; then
		die "TC_PLUGIN is not a file: $TC_PLUGIN"
	fi
	if [ -n "$TC_SHIM" ] && { [ -z "$TC_PLUGIN" ] || [ ! -x "$TC_SHIM" ]; }; then
		die "TC_SHIM needs TC_PLUGIN and must be an executable file: $TC_SHIM"
	fi
	local tool
	for tool in ip nsenter unshare taskset mknod munged slurmctld slurmd sinfo timeout; do
		command -v "$tool" >/dev/null || die "$tool not found (run contrib/install-deps.sh)"
	done
}

# --- teardown ---------------------------------------------------------------

# Processes whose pid is in $1 (when it is still alive).
pid_from_file() {
	local pid
	[ -f "$1" ] || return 0
	pid=$(cat "$1" 2>/dev/null) || return 0
	[[ $pid =~ ^[0-9]+$ ]] && is_alive "$pid" && echo "$pid"
	return 0
}

# True while $1 runs; a zombie waiting for init to reap it counts as gone.
is_alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# Sends TERM to the given pids, waits up to 5 s (slurmd takes about 2 s; slurmstepd
# ignores TERM), then KILLs the survivors.
stop_pids() {
	local pid alive i
	[ "$#" -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	for ((i = 0; i < 25; i++)); do
		alive=0
		for pid in "$@"; do
			is_alive "$pid" && alive=1
		done
		[ "$alive" -eq 0 ] && return 0
		sleep 0.2
	done
	kill -KILL "$@" 2>/dev/null || true
	sleep 0.2
}

# slurmctld of this cluster: its pid file, and any process started with our
# slurm.conf (a stale pid file must not leave one behind).
ctld_pids() {
	local p cmd
	pid_from_file "$RUN/slurmctld.pid"
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = slurmctld ] || continue
		cmd=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		case $cmd in
		*slurmctld*" -f $CONF "*) echo "${p#/proc/}" ;;
		esac
	done
}

node_netns() {
	ip netns list 2>/dev/null | awk -v p="${NETNS_PREFIX}tcn" 'index($1, p) == 1 {print $1}'
}

do_down() {
	local ns link pids=()

	# Everything inside a node's network namespace is ours: slurmd, slurmstepd and
	# the tasks of jobs still running. Stop them and slurmctld together (slurmd
	# takes seconds to exit; one after the other would add up).
	for ns in $(node_netns); do
		# shellcheck disable=SC2207 # one pid per word
		pids+=($(timeout 10 ip netns pids "$ns" 2>/dev/null || true))
	done
	# shellcheck disable=SC2207
	pids+=($(ctld_pids | sort -u))
	stop_pids "${pids[@]}"
	for ns in $(node_netns); do
		timeout 10 ip netns del "$ns" 2>/dev/null || true
	done

	# Host ends of the veths vanish with their namespace; remove any left over.
	for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
		case $link in
		tcv[0-9]*) ip link del "$link" 2>/dev/null || true ;;
		esac
	done
	ip link del "$BRIDGE" 2>/dev/null || true

	# munged only if this script started it.
	if [ -f "$RUN/munged.ours" ]; then
		local mpid
		mpid=$(pid_from_file "$RUN/munged.ours")
		# Check the name too: the pid may have been reused since.
		if [ -n "$mpid" ] && [ "$(cat "/proc/$mpid/comm" 2>/dev/null)" = munged ]; then
			stop_pids "$mpid"
		fi
		rm -f "$RUN/munged.ours"
	fi

	# The /tmp bind mounts live in the nodes' private mount namespaces and are
	# gone with them; unmount anything that leaked into the host under TC_DIR.
	if [ -d "$TC_DIR" ]; then
		local m
		awk -v d="$TC_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r |
			while read -r m; do
				timeout 10 umount -l "$m" 2>/dev/null || true
			done
	fi
	rm -f "$RUN"/slurmctld.pid "$RUN"/slurmd.*.pid "$RUN"/sshd.*.pid
	# The ssh client's settings, when this cluster wrote them (another
	# TC_DIR's cluster may be up beside it).
	if [ -f "$SSH_CLIENT_CONF" ] && grep -qxF "# TC_DIR=$TC_DIR" "$SSH_CLIENT_CONF"; then
		rm -f "$SSH_CLIENT_CONF"
	fi
	# Job ids restart at 1 with every `up`; PMIx directories a step left in a
	# node's /tmp (spmix_appdir_<uid>_<job>.<step>) would make the same step id
	# fail to launch next time.
	rm -rf "${TC_DIR:?}/tmp" "${TC_DIR:?}/jc"
	# Profile cgroup: the nodes' cgroup directories, empty now (deepest first).
	if [ "$(cat "$RUN/profile" 2>/dev/null)" = cgroup ]; then
		find /sys/fs/cgroup -depth -path '*/slurm_tcn[0-9]*' -type d -exec rmdir {} + 2>/dev/null || true
	fi
	rm -f "$RUN/profile"
}

# --- setup ------------------------------------------------------------------

write_configs() {
	local k n
	mkdir -p "$TC_DIR" "$RUN" "$TC_DIR/log" "$TC_DIR/state" "$TC_DIR/spool" "$TC_DIR/tmp" "$TC_DIR/dev"
	# Fresh state every time: job ids restart and no node remembers being DOWN.
	rm -rf "${TC_DIR:?}/state/"* "${TC_DIR:?}/spool/"* "${TC_DIR:?}/log/"*

	{
		echo "# Written by contrib/slurm/testcluster.sh; overwritten by every 'up'."
		echo "ClusterName=tc"
		echo "SlurmctldHost=$CTL_HOST($CTL_ADDR)"
		echo "AuthType=auth/munge"
		echo "CryptoType=crypto/munge"
		echo "SlurmUser=root"
		echo "SlurmdUser=root"
		echo "SlurmctldPort=6817"
		echo "SlurmdPort=6818"
		# srun listens here for slurmd/slurmstepd callbacks (I/O, PMI); away
		# from the ephemeral range and from ports the tests use (29500-29600).
		echo "SrunPortRange=60001-63000"
		echo "StateSaveLocation=$TC_DIR/state"
		echo "SlurmdSpoolDir=$TC_DIR/spool/%n"
		echo "SlurmctldPidFile=$RUN/slurmctld.pid"
		echo "SlurmdPidFile=$RUN/slurmd.%n.pid"
		echo "SlurmctldLogFile=$TC_DIR/log/slurmctld.log"
		echo "SlurmdLogFile=$TC_DIR/log/slurmd.%n.log"
		echo "SlurmctldDebug=info"
		echo "SlurmdDebug=info"
		echo "PlugStackConfig=$TC_DIR/plugstack.conf"
		# No cgroups unless profile cgroup (the others need none).
		if [ "$TC_PROFILE" = cgroup ]; then
			# Each node's cgroups are /sys/fs/cgroup/<controller>/slurm_tcnK
			# (Slurm built for several slurmd on one host); cgroup.conf.
			echo "ProctrackType=proctrack/cgroup"
			echo "TaskPlugin=task/cgroup,task/affinity"
		else
			echo "ProctrackType=proctrack/linuxproc"
			echo "TaskPlugin=task/none"
		fi
		echo "JobAcctGatherType=jobacct_gather/none"
		echo "AccountingStorageType=accounting_storage/none"
		echo "JobCompType=jobcomp/none"
		# Tests ask for --mpi=pmix explicitly; the plain path must work too.
		echo "MpiDefault=none"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core"
		# Nodes claim 8 CPUs and 4 GPUs on a 2-core machine without any.
		if [ "$TC_CONTAIN_SPANK" = 1 ]; then
			echo "SlurmdParameters=config_overrides,contain_spank"
		else
			echo "SlurmdParameters=config_overrides"
		fi
		if [ "$TC_PROFILE" = jobcontainer ]; then
			# A private /tmp and /dev/shm per job, made by the extern step.
			if slurm_at_least 26.05; then
				echo "NamespaceType=namespace/tmpfs"
			else
				echo "JobContainerType=job_container/tmpfs"
			fi
			echo "PrologFlags=Contain"
		fi
		echo "GresTypes=gpu"
		echo "ReturnToService=2"
		echo "MailProg=/bin/true"
		# Short timeouts: a broken test must fail fast, not hang the suite.
		echo "SlurmdTimeout=30"
		echo "SlurmctldTimeout=30"
		echo "MessageTimeout=10"
		echo "KillWait=5"
		echo "InactiveLimit=0"
		echo "MinJobAge=30"
		echo "UnkillableStepTimeout=30"
		echo "SchedulerType=sched/backfill"
		# Profile cgroup binds and confines to real CPUs: every node claims
		# this machine's (all nodes the same ones).
		local cpus=8
		[ "$TC_PROFILE" != cgroup ] || cpus=$(nproc)
		for ((k = 1; k <= TC_NODES; k++)); do
			echo "NodeName=$(node_name "$k") NodeAddr=$NET.$k CPUs=$cpus Boards=1 SocketsPerBoard=1" \
				"CoresPerSocket=$cpus ThreadsPerCore=1 RealMemory=2000 Gres=gpu:4 State=UNKNOWN"
		done
		echo "PartitionName=debug Nodes=tcn[1-$TC_NODES] Default=YES MaxTime=INFINITE OverSubscribe=NO State=UP"
	} >"$CONF.new"
	mv "$CONF.new" "$CONF"

	{
		echo "# Written by contrib/slurm/testcluster.sh."
		for ((k = 1; k <= TC_NODES; k++)); do
			echo "NodeName=$(node_name "$k") Name=gpu File=$TC_DIR/dev/$(node_name "$k")/gpu[0-3]"
		done
	} >"$TC_DIR/gres.conf"

	rm -f "$TC_DIR/cgroup.conf"
	if [ "$TC_PROFILE" = cgroup ]; then
		{
			echo "# Written by contrib/slurm/testcluster.sh."
			# This machine: controllers on cgroup v1, an empty cgroup2 at
			# /sys/fs/cgroup/unified (docs/testing.md, "Site profiles").
			echo "CgroupPlugin=cgroup/v1"
			echo "CgroupMountpoint=/sys/fs/cgroup"
			echo "ConstrainCores=yes"
			echo "ConstrainDevices=yes"
		} >"$TC_DIR/cgroup.conf"
	fi

	rm -f "$TC_DIR/job_container.conf"
	if [ "$TC_PROFILE" = jobcontainer ]; then
		# Each node its own BasePath: Slurm built for several slurmd on one
		# host (as Debian's is; slurmd -N needs it) appends the node name,
		# so node K's jobs live under jc/tcnK.
		{
			echo "# Written by contrib/slurm/testcluster.sh."
			echo "BasePath=$TC_DIR/jc"
		} >"$TC_DIR/job_container.conf"
	fi

	if [ -n "$TC_PLUGIN" ]; then
		# Copies under TC_DIR: a build tree under /tmp is invisible to the
		# nodes, each of which has its own /tmp.
		local stage=$TC_DIR/stage args=$TC_PLUGIN_ARGS
		rm -rf "$stage" && mkdir -p "$stage"
		cp "$TC_PLUGIN" "$stage/spank_dist.so"
		if [ -n "$TC_SHIM" ]; then
			cp "$TC_SHIM" "$stage/dist-shim"
			# Its modules (shim/base/module.h) go beside it, where a build
			# tree's shim finds them.
			cp "$(dirname "$TC_SHIM")"/dist-shim-*.so "$stage/" 2>/dev/null ||
				die "no dist-shim-*.so beside $TC_SHIM: build the shim's modules too"
			# What carries the shim into a container (core/dist_carry.h).
			cp "$(dirname "$TC_SHIM")"/dist-shim-enter "$stage/" 2>/dev/null ||
				die "no dist-shim-enter beside $TC_SHIM: build it too"
			args="shim=$stage/dist-shim${args:+ $args}"
		fi
		echo "required $stage/spank_dist.so $args" >"$TC_DIR/plugstack.conf"
	else
		: >"$TC_DIR/plugstack.conf"
	fi

	# Fake GPUs: Slurm refuses regular files in gres.conf, so make character
	# devices (the same major/minor as /dev/null). Under ConstrainDevices a
	# task is denied the GPUs it was not given, which must not be /dev/null:
	# profile cgroup uses major 240 (local use, no driver), minor = GPU.
	local major=1
	[ "$TC_PROFILE" != cgroup ] || major=240
	for ((k = 1; k <= TC_NODES; k++)); do
		n=$(node_name "$k")
		mkdir -p "$TC_DIR/dev/$n" "$TC_DIR/spool/$n" "$TC_DIR/tmp/$n"
		chmod 1777 "$TC_DIR/tmp/$n"
		[ "$TC_PROFILE" != jobcontainer ] || mkdir -p "$TC_DIR/jc/$n"
		local g
		for g in 0 1 2 3; do
			local want="1:3"
			[ "$major" = 1 ] || want="$major:$g"
			[ -c "$TC_DIR/dev/$n/gpu$g" ] &&
				[ "$(stat -c '%Hr:%Lr' "$TC_DIR/dev/$n/gpu$g")" = "$want" ] || {
				rm -f "$TC_DIR/dev/$n/gpu$g"
				mknod -m 666 "$TC_DIR/dev/$n/gpu$g" c "${want%:*}" "${want#*:}"
			}
		done
	done
}

munge_works() {
	timeout 5 munge -n 2>/dev/null | timeout 5 unmunge >/dev/null 2>&1
}

start_munge() {
	if [ ! -s /etc/munge/munge.key ]; then
		log "creating /etc/munge/munge.key"
		mkdir -p /etc/munge
		if command -v mungekey >/dev/null; then
			mungekey --create --keyfile=/etc/munge/munge.key
		else
			dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
		fi
	fi
	chown munge:munge /etc/munge /etc/munge/munge.key
	chmod 0700 /etc/munge
	chmod 0400 /etc/munge/munge.key
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	chmod 0755 /run/munge

	if [ -S "$MUNGE_SOCKET" ] && munge_works; then
		return 0
	fi
	log "starting munged"
	# munged daemonizes itself; run it as the munge user like the packaged unit.
	timeout 20 runuser -u munge -- munged ||
		die "munged failed to start (see /var/log/munge/munged.log)"
	local i
	for ((i = 0; i < 50; i++)); do
		munge_works && break
		sleep 0.2
	done
	munge_works || die "munged does not answer on $MUNGE_SOCKET"
	pid_from_file "$MUNGE_PIDFILE" >"$RUN/munged.ours"
}

setup_network() {
	local k n ns ifname
	ip link add "$BRIDGE" type bridge
	ip addr add "$CTL_ADDR/24" dev "$BRIDGE"
	ip link set "$BRIDGE" up
	for ((k = 1; k <= TC_NODES; k++)); do
		n=$(node_name "$k")
		ns=$NETNS_PREFIX$n
		ifname=$(node_ifname "$k")
		ip netns add "$ns"
		# Create the pair with a temporary name in the host (which may already
		# have an eth0), then move and rename the node end.
		ip link add "tcv$k" type veth peer name "tcp$k"
		ip link set "tcv$k" master "$BRIDGE" up
		ip link set "tcp$k" netns "$ns"
		ip -n "$ns" link set "tcp$k" name "$ifname"
		ip -n "$ns" addr add "$NET.$k/24" dev "$ifname"
		ip -n "$ns" link set lo up
		ip -n "$ns" link set "$ifname" up
		ip -n "$ns" route add default via "$CTL_ADDR"
		# Like a docker host: same address on every node, must never be chosen.
		ip -n "$ns" link add docker0 type bridge
		ip -n "$ns" addr add 172.17.0.1/16 dev docker0
		ip -n "$ns" link set docker0 up
	done
}

start_slurmctld() {
	log "starting slurmctld ($CTL_HOST, $CTL_ADDR)"
	# slurmctld refuses to run unless its hostname matches SlurmctldHost: give
	# it its own UTS namespace. It daemonizes and writes SlurmctldPidFile.
	# shellcheck disable=SC2016 # $1, $2 are the inner shell's arguments
	timeout 30 unshare --uts -- /bin/sh -c 'hostname "$1" && exec slurmctld -f "$2"' \
		sh "$CTL_HOST" "$CONF" ||
		{ show_logs; die "slurmctld failed to start; see $TC_DIR/log/slurmctld.log"; }
}

start_slurmd() {
	local k=$1 n
	n=$(node_name "$k")
	if [ "$TC_PROFILE" = jobcontainer ]; then
		start_slurmd_jc "$k" "${2:-$CONF}" ||
			{ show_logs; die "slurmd $n failed to start; see $TC_DIR/log/slurmd.$n.log"; }
	else
		start_slurmd_on "$k" "${2:-$CONF}" "" "" ||
			{ show_logs; die "slurmd $n failed to start; see $TC_DIR/log/slurmd.$n.log"; }
	fi
}

# start_slurmd_on K CONF CPU CPUS: node K's namespaces and slurmd. With CPU
# set (profile jobcontainer), the mount namespace is made on that CPU, must
# pass `nscheck` (exit 3 if not), and slurmd then gets the CPUS back.
start_slurmd_on() {
	local k=$1 conf=$2 cpu=$3 cpus=$4 n ns pin=()
	n=$(node_name "$k")
	ns=$NETNS_PREFIX$n
	[ -z "$cpu" ] || pin=(taskset -c "$cpu")
	# nsenter, not `ip netns exec`: the latter remounts /sys and slurmd then
	# finds no /sys/fs/cgroup. Own UTS namespace (hostname = node name) and own
	# mount namespace with a private /tmp (PMIx's files in /tmp would collide
	# between nodes) and a private /dev/shm (as on real nodes; Open MPI's
	# shared-memory segments of different "nodes" must not meet); private
	# propagation keeps the mounts out of the host.
	# shellcheck disable=SC2016 # $1..$6 are the inner shell's arguments
	timeout 30 "${pin[@]}" nsenter --net="/var/run/netns/$ns" -- \
		unshare --uts --mount --propagation private -- \
		/bin/sh -c 'hostname "$1" && mount --bind "$2" /tmp &&
			mount -t tmpfs -o mode=1777,size=256m tmpfs /dev/shm &&
			if [ -n "$4" ]; then
				TC_DIR=$6 /bin/bash "$4" nscheck "$1" "$5" || exit
				taskset -pc "$5" $$ >/dev/null || exit
			fi &&
			exec slurmd -N "$1" -f "$3"' \
		sh "$n" "$TC_DIR/tmp/$n" "$conf" "${cpu:+$SELF}" "$cpus" "$TC_DIR"
}

# The CPUs of a taskset list (0-3,6), one a line.
expand_cpus() {
	local part
	for part in ${1//,/ }; do
		case $part in
		*-*) seq "${part%-*}" "${part#*-}" ;;
		*) echo "$part" ;;
		esac
	done
}

# The CPUs this process may run on, one a line.
allowed_cpus() {
	expand_cpus "$(taskset -pc $$ | sed 's/.*: *//')"
}

# Profile jobcontainer. Not in a chroot: a task joins its job's mount
# namespace with setns(), which sets its root to that namespace's root mount
# (contrib/release/run.sh pivot_roots into a release's file system for this).
#
# job_container/tmpfs keeps each job's mount namespace
# alive by bind-mounting /proc/CHILD/ns/mnt (a namespace slurmstepd's child
# just made) onto BasePath/JOBID/.ns, in slurmstepd's, i.e. the node's, mount
# namespace. The kernel allows that bind only when the node's namespace has a
# smaller id than the child's (mnt_ns_loop). Since Linux 6.18 namespace ids
# come from per-CPU batches (ns_tree_gen_id, gen_cookie_next), so a namespace
# made on one CPU can have a smaller id than an older one made on another: a
# node namespace made on a CPU whose batch is above another CPU's then fails
# every job whose child runs on that other CPU ("_create_ns: ns base mount
# failed: Invalid argument"). So the node's namespace is made on each CPU in
# turn until one passes `nscheck`: a namespace made now on every CPU can be
# bound there. Ids only grow on each CPU, so every later job's can too.
start_slurmd_jc() {
	local k=$1 conf=$2 cpus cpu rc
	cpus=$(taskset -pc $$ | sed 's/.*: *//')
	for _ in 1 2 3; do
		for cpu in $(allowed_cpus); do
			rc=0
			start_slurmd_on "$k" "$conf" "$cpu" "$cpus" || rc=$?
			[ "$rc" -eq 3 ] || return "$rc"
			log "tcn$k: a mount namespace made on CPU $cpu cannot hold every CPU's new ones; trying another"
		done
	done
	log "tcn$k: no CPU gives a mount namespace that can hold the jobs' namespaces"
	return 1
}

# nscheck NODE CPUS (inside the node's new mount namespace): on every CPU
# of CPUS (the node's, not this process's: it runs pinned to the CPU its
# namespace was made on), a new mount namespace's file can be bound here,
# as slurmstepd will. Exit 3 if not.
do_nscheck() {
	local n=$1 cpus=$2 holder cpu pid rc=0
	holder=$TC_DIR/jc/$n/.nscheck
	: >"$holder"
	for cpu in $(expand_cpus "$cpus"); do
		taskset -c "$cpu" unshare --mount --propagation unchanged sleep 10 &
		pid=$!
		# Until the child has its own namespace.
		for _ in $(seq 50); do
			[ "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/$$/ns/mnt)" ] && break
			sleep 0.02
		done
		if mount --bind "/proc/$pid/ns/mnt" "$holder" 2>/dev/null; then
			umount "$holder"
		else
			rc=3
		fi
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		[ "$rc" -eq 0 ] || break
	done
	rm -f "$holder"
	return "$rc"
}

# Restarts node $1's slurmd (a test's broken plugstack.conf, then the good
# one again): stops it, starts it with slurm.conf $2 (default: the cluster's),
# and fails unless it is still running 3 s later.
do_restart_slurmd() {
	local k=$1 n pid
	n=$(node_name "$k")
	# shellcheck disable=SC2046 # one pid or none
	stop_pids $(pid_from_file "$RUN/slurmd.$n.pid")
	rm -f "$RUN/slurmd.$n.pid"
	(start_slurmd "$k" "${2:-$CONF}") || return 1
	sleep 3
	pid=$(pid_from_file "$RUN/slurmd.$n.pid")
	[ -n "$pid" ] || { log "slurmd $n is not running"; return 1; }
}

show_logs() {
	local f
	for f in "$TC_DIR"/log/*.log; do
		[ -f "$f" ] || continue
		echo "==> $f <==" >&2
		tail -n 15 "$f" >&2
	done
}

wait_idle() {
	local deadline states bad
	deadline=$((SECONDS + TC_TIMEOUT))
	while :; do
		states=$(SLURM_CONF=$CONF timeout 10 sinfo -h -N -p debug -o '%N %t' 2>/dev/null || true)
		bad=$(echo "$states" | awk 'NF == 2 && $2 != "idle"' | wc -l)
		if [ -n "$states" ] && [ "$bad" -eq 0 ] &&
			[ "$(echo "$states" | awk 'NF == 2' | wc -l)" -eq "$TC_NODES" ]; then
			return 0
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			log "error: nodes not idle after ${TC_TIMEOUT}s:"
			echo "${states:-(sinfo gave no answer)}" >&2
			show_logs
			return 1
		fi
		sleep 1
	done
}

# --- sshd on every node (TC_SSHD=1) ------------------------------------------

# Keys and settings under TC_DIR/ssh: one host key for every node (the
# known_hosts line covers them all), root's key, each node's sshd_config.
write_ssh_configs() {
	local d=$TC_DIR/ssh k n
	mkdir -p "$d"
	chmod 0700 "$d"
	[ -f "$d/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C tc-host -f "$d/host_ed25519"
	[ -f "$d/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C tc-root -f "$d/id_ed25519"
	cp "$d/id_ed25519.pub" "$d/authorized_keys"
	{
		printf 'tcn*,%s.* ' "$NET"
		cut -d' ' -f1,2 "$d/host_ed25519.pub"
	} >"$d/known_hosts"
	for ((k = 1; k <= TC_NODES; k++)); do
		n=$(node_name "$k")
		cat >"$d/sshd_config.$n" <<-EOF
			# Written by contrib/slurm/testcluster.sh.
			ListenAddress $NET.$k
			HostKey $d/host_ed25519
			PidFile $RUN/sshd.$n.pid
			AuthorizedKeysFile $d/authorized_keys
			PermitRootLogin prohibit-password
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			UsePAM no
			StrictModes no
			PrintMotd no
		EOF
	done
	# Node names do not resolve here (by design): the client maps each.
	{
		echo "# Written by contrib/slurm/testcluster.sh; removed by its down."
		echo "# TC_DIR=$TC_DIR"
		for ((k = 1; k <= TC_NODES; k++)); do
			printf 'Host %s\n\tHostName %s.%s\n' "$(node_name "$k")" "$NET" "$k"
		done
		printf 'Host tcn* %s.*\n' "$NET"
		printf '\tIdentityFile %s/id_ed25519\n\tUserKnownHostsFile %s/known_hosts\n' "$d" "$d"
		printf '\tStrictHostKeyChecking yes\n\tBatchMode yes\n\tConnectTimeout 10\n'
	} >"$SSH_CLIENT_CONF"
}

# Node K's sshd, in the namespaces of its slurmd (network, host name, the
# private /tmp and /dev/shm), as a node's own sshd would be.
start_sshd() {
	local k=$1 n pid
	n=$(node_name "$k")
	pid=$(pid_from_file "$RUN/slurmd.$n.pid")
	[ -n "$pid" ] || die "no slurmd on $n to start its sshd beside"
	mkdir -p /run/sshd
	timeout 30 nsenter -t "$pid" --net --uts --mount -- \
		/usr/sbin/sshd -f "$TC_DIR/ssh/sshd_config.$n" -E "$TC_DIR/log/sshd.$n.log" ||
		die "sshd on $n failed to start; see $TC_DIR/log/sshd.$n.log"
}

# Every node answers ssh by name, from node 1 as a job would.
check_ssh() {
	local k n pid
	pid=$(pid_from_file "$RUN/slurmd.tcn1.pid")
	for ((k = 1; k <= TC_NODES; k++)); do
		n=$(node_name "$k")
		[ "$(timeout 20 nsenter -t "$pid" --net --uts --mount -- ssh "$n" hostname 2>&1)" = "$n" ] ||
			die "ssh from tcn1 to $n does not work; see $TC_DIR/log/sshd.$n.log"
	done
}

cleanup_failed_up() {
	local rc=$?
	if [ "$rc" -ne 0 ] && [ "$TC_KEEP_ON_FAILURE" != 1 ]; then
		log "up failed; tearing down (logs stay in $TC_DIR/log; TC_KEEP_ON_FAILURE=1 keeps the cluster)"
		do_down >/dev/null 2>&1 || true
	fi
	return "$rc"
}

do_up() {
	check_config
	do_down >/dev/null 2>&1 || true
	# A half-built cluster would leak daemons and namespaces into later runs.
	trap cleanup_failed_up EXIT
	write_configs
	echo "$TC_PROFILE" >"$RUN/profile"
	start_munge
	setup_network
	start_slurmctld
	local k
	for ((k = 1; k <= TC_NODES; k++)); do
		start_slurmd "$k"
	done
	if ! wait_idle; then
		exit 1
	fi
	if [ "$TC_SSHD" = 1 ]; then
		write_ssh_configs
		for ((k = 1; k <= TC_NODES; k++)); do
			start_sshd "$k"
		done
		check_ssh
	fi
	trap - EXIT
	log "up: $TC_NODES nodes idle; eval \"\$($0 env)\" to use it"
}

do_env() {
	printf 'export SLURM_CONF=%q\n' "$CONF"
	printf 'export TC_DIR=%q\n' "$TC_DIR"
	printf 'export TC_NODES=%q\n' "$TC_NODES"
}

do_status() {
	SLURM_CONF=$CONF timeout 10 sinfo -N -l || die "no answer from slurmctld"
	SLURM_CONF=$CONF timeout 10 squeue || true
}

usage() {
	echo "usage: $0 up|down|status|env|restart-slurmd K [CONF]" >&2
	exit 2
}

[ "$#" -ge 1 ] || usage
if [ "$1" = nscheck ]; then
	# Internal: run by start_slurmd_on inside a node's mount namespace.
	[ "$#" -eq 3 ] || usage
	do_nscheck "$2" "$3"
	exit
fi
if [ "$1" = restart-slurmd ]; then
	[ "$#" -ge 2 ] && [ "$#" -le 3 ] || usage
	[ "$(id -u)" -eq 0 ] || die "must run as root"
	do_restart_slurmd "$2" "${3:-}"
	exit
fi
[ "$#" -eq 1 ] || usage
case $1 in
up) do_up ;;
down)
	[ "$(id -u)" -eq 0 ] || die "must run as root"
	do_down
	;;
status) do_status ;;
env) do_env ;;
*) usage ;;
esac
