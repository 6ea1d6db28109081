#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dist-shim --doctor on every node through one srun step: on the good
# cluster each check of each node is OK (the PMIx check warns on a Slurm
# without the PMIx plugin, 26.05) and it exits 0; with tcn2 made wrong (its
# net.ipv4.ip_local_port_range overlaps the site's port_range, a per-network-
# namespace setting, so on that node only) it names tcn2 and exits non-zero.
# With the plugstack line made optional it warns naming the line.
source "$(dirname "$0")/lib.sh"

doctor() {
	run_srun "$1" -N"$TC_NODES" --ntasks-per-node=1 "$SHIM" --doctor
}

doctor good
[ "$RC" -eq 0 ] || { cat "$WORK/good.out" "$WORK/good.err" >&2; fail "doctor exited $RC on the good cluster"; }
assert_count "$WORK/good.out" ': FAIL ' 0
for ((k = 1; k <= TC_NODES; k++)); do
	n=tcn$k
	assert_contains "$WORK/good.out" "doctor: $n: all OK"
	assert_contains "$WORK/good.out" "doctor: $n: OK   slurm: slurmctld runs Slurm $(slurm_release)."
	assert_contains "$WORK/good.out" "doctor: $n: OK   plugin: $PLUGIN, slurm-dist $(project_version), built for Slurm $(slurm_release)."
	assert_contains "$WORK/good.out" "doctor: $n: OK   shim: $SHIM is executable"
	assert_contains "$WORK/good.out" "doctor: $n: OK   ports: port_range 24000-24999 is outside"
	assert_contains "$WORK/good.out" "doctor: $n: OK   interface: $(expected_ifname "$n") (10.77.0.$k) reaches slurmctld 10.77.0.254"
	assert_contains "$WORK/good.out" "doctor: $n: OK   devices: hwloc sees"
	assert_contains "$WORK/good.out" "doctor: $n: OK   npus: none on this node"
	assert_contains "$WORK/good.out" "doctor: $n: OK   containers: no container plugin in plugstack.conf"
	if [ "$XMPI" = pmix ]; then
		assert_contains "$WORK/good.out" "doctor: $n: OK   pmix:"
	else
		assert_contains "$WORK/good.out" "doctor: $n: WARN pmix: no mpi_pmix.so"
	fi
done

# optional: Slurm would ignore every refusal of the plugin (docs/admin.md).
plugstack=$TC_DIR/plugstack.conf
cp "$plugstack" "$WORK/plugstack.good"
trap 'cp "$WORK/plugstack.good" "$plugstack"' EXIT
sed -i 's/^required /optional /' "$plugstack"
run_srun optional -N1 -w tcn1 "$SHIM" --doctor
cp "$WORK/plugstack.good" "$plugstack"
assert_contains "$WORK/optional.out" "doctor: tcn1: WARN plugstack: $plugstack:1: 'optional $PLUGIN"
assert_contains "$WORK/optional.out" "': optional loses every refusal of the plugin silently"

ns=/var/run/netns/tc-tcn2
orig=$(nsenter --net="$ns" cat /proc/sys/net/ipv4/ip_local_port_range)
trap 'cp "$WORK/plugstack.good" "$plugstack"; nsenter --net="$ns" sysctl -q -w net.ipv4.ip_local_port_range="$orig"' EXIT
nsenter --net="$ns" sysctl -q -w net.ipv4.ip_local_port_range="20000 30000"
doctor bad
[ "$RC" -ne 0 ] || fail "doctor exited 0 with tcn2's ephemeral ports over the site's port_range"
assert_contains "$WORK/bad.out" "doctor: tcn2: FAIL ports: port_range 24000-24999 overlaps net.ipv4.ip_local_port_range 20000-30000"
assert_contains "$WORK/bad.out" "doctor: tcn2: 1 problem"
assert_contains "$WORK/bad.out" "doctor: tcn1: all OK"
assert_contains "$WORK/bad.out" "doctor: tcn3: all OK"
assert_count "$WORK/bad.out" ': FAIL ' 1
