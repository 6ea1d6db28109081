#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
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

# A plugstack line that only slurmstepd sees broken (the client's is good):
# the plugin cannot initialise on the node. An srun step fails to launch on
# every release, the node staying up (22.05's srun still exits 0 then:
# Slurm's own behaviour). A batch job: before 25.05 Slurm drains the node of
# a batch step whose required plugin fails (checked, then undone); from
# 25.05 the plugin asks for the job to fail instead and the node stays up.
good=$TC_DIR/plugstack.conf
cp "$good" "$WORK/good.plugstack"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$WORK/good.plugstack|" "$SLURM_CONF" >"$WORK/client.conf"
restore() { cp "$WORK/good.plugstack" "$good"; }
trap restore EXIT
sed 's|$| colour=blue|' "$WORK/good.plugstack" >"$good"
SLURM_CONF=$WORK/client.conf run_srun remote_init -w tcn3 -N1 bash -c "touch $WORK/started"
if slurm_at_least 25.05; then
	# The plugin's slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE.
	assert_contains "$WORK/remote_init.err" "Spank plugin failure, job failed"
else
	assert_contains "$WORK/remote_init.err" "Plugin initialization failed"
fi
[ ! -e "$WORK/started" ] || fail "a task started though the plugin failed on its node"
if slurm_at_least 23.02; then
	[ "$RC" -ne 0 ] || fail "srun exited 0 though its step could not launch"
fi
assert_no_node_drained

# --no-requeue: from 24.x Slurm requeues a batch job whose launch failed.
SLURM_CONF=$WORK/client.conf run_sbatch "$WORK/batch.out" --no-requeue -w tcn3 -N1 --wrap "touch $WORK/started"
restore
[ ! -e "$WORK/started" ] || fail "a batch script started though the plugin failed on its node"
state=$(sinfo -h -n tcn3 -o '%T')
echo "bad_plugstack: batch job $JOB ended $JOB_STATE, tcn3 is $state"
if slurm_at_least 25.05; then
	case $state in
	idle | allocated | mixed | completing) ;;
	*) fail "tcn3 is '$state' after a plugin init failure on 25.05+ (expected the job to fail, not the node)" ;;
	esac
else
	case $state in
	drain* | draining) resume_node tcn3 ;;
	*) fail "tcn3 is '$state'; Slurm before 25.05 drains the node of a failing required plugin" ;;
	esac
fi
assert_no_node_drained
