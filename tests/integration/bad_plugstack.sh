#!/bin/bash
# plugstack.conf arguments are key=value; an unknown key or a bad value
# stops the plugin from loading, with the key named in the error.
source "$(dirname "$0")/lib.sh"

try_args() {
	local name=$1 args=$2
	printf 'required %s %s\n' "$PLUGIN" "$args" >"$WORK/$name.plugstack"
	sed "s|^PlugStackConfig=.*|PlugStackConfig=$WORK/$name.plugstack|" "$SLURM_CONF" >"$WORK/$name.conf"
	SLURM_CONF=$WORK/$name.conf run_srun "$name" --dist-mode=ddp -N1 true
	[ "$RC" -ne 0 ] || fail "srun with plugstack arguments '$args' exited 0"
}

try_args unknown_key "shim=/usr/bin/true colour=blue"
assert_contains "$WORK/unknown_key.err" "unknown plugstack argument 'colour'"
try_args bad_range "port_range=70000-80000"
assert_contains "$WORK/bad_range.err" "invalid port range '70000-80000'"
try_args relative_shim "shim=dist-shim"
assert_contains "$WORK/relative_shim.err" "shim=dist-shim: expected an absolute path"
assert_no_node_drained

# A plugstack line that only slurmstepd sees broken (srun's is good): the
# plugin fails to initialise on the node. From Slurm 25.05 the plugin asks
# for the job to fail and the node stays up; before, Slurm drains the node
# of a failing required plugin, which the test records and undoes.
good=$TC_DIR/plugstack.conf
cp "$good" "$WORK/good.plugstack"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$WORK/good.plugstack|" "$SLURM_CONF" >"$WORK/client.conf"
restore() { cp "$WORK/good.plugstack" "$good"; }
trap restore EXIT
sed 's|$| colour=blue|' "$WORK/good.plugstack" >"$good"
SLURM_CONF=$WORK/client.conf run_srun remote_init -w tcn3 -N1 true
restore
[ "$RC" -ne 0 ] || fail "a step whose plugin cannot initialise on its node exited 0"
state=$(sinfo -h -n tcn3 -o '%T')
if slurm_at_least 25.05; then
	case $state in
	idle | allocated | mixed | completing) ;;
	*) fail "tcn3 is '$state' after a plugin init failure on 25.05+ (expected the job to fail, not the node)" ;;
	esac
else
	case $state in
	drain* | draining) ;;
	*) fail "tcn3 is '$state'; Slurm before 25.05 drains the node of a failing required plugin" ;;
	esac
	scontrol update nodename=tcn3 state=resume
fi
assert_no_node_drained
