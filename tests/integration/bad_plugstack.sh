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
