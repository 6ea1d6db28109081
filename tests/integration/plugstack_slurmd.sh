#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A broken plugstack.conf line is refused where slurmd loads the plugin, so
# the admin sees it when slurmd starts, not when a job lands on the node
# (where a failing init drains the node of a batch job before 25.05). The
# test restarts tcn3's slurmd with a plugstack.conf whose argument is
# unknown, checks that slurmd does not run with it and says why in its log,
# then restarts it with the good one: no node drained, jobs run there again.
source "$(dirname "$0")/lib.sh"

TC=$SRC_DIR/contrib/slurm/testcluster.sh
LOG=$TC_DIR/log/slurmd.tcn3.log
printf 'required %s port_range=24000-24999 colour=blue\n' "$PLUGIN" >"$WORK/broken.plugstack"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$WORK/broken.plugstack|" "$SLURM_CONF" >"$WORK/broken.conf"
# slurmd reads gres.conf and the like beside its slurm.conf.
for f in "$(dirname "$SLURM_CONF")"/*.conf; do
	case ${f##*/} in slurm.conf | plugstack.conf) ;; *) cp "$f" "$WORK/" ;; esac
done
restore() { "$TC" restart-slurmd 3 >/dev/null 2>&1 || true; }
trap restore EXIT

lines=$(wc -l <"$LOG")
rc=0
"$TC" restart-slurmd 3 "$WORK/broken.conf" >"$WORK/restart.out" 2>&1 || rc=$?
tail -n +"$((lines + 1))" "$LOG" >"$WORK/slurmd.log"
echo "plugstack_slurmd: Slurm $(sinfo -V | awk '{print $2}'): slurmd with a broken plugstack exited rc=$rc"
grep -E 'dist:|spank|initiali' "$WORK/slurmd.log" | sed 's/^/plugstack_slurmd: log: /' || true
assert_contains "$WORK/slurmd.log" "unknown plugstack argument 'colour'"
assert_contains "$WORK/slurmd.log" "fix plugstack.conf"
# slurmd refuses to run with a required plugin that fails its init.
[ "$rc" -ne 0 ] || fail "slurmd of tcn3 kept running with a broken plugstack.conf"

trap - EXIT
"$TC" restart-slurmd 3 || fail "slurmd of tcn3 did not start again with the good plugstack.conf"
deadline=$((SECONDS + 60))
until [ "$(sinfo -h -n tcn3 -o '%T')" = idle ]; do
	[ $SECONDS -lt $deadline ] || fail "tcn3 is '$(sinfo -h -n tcn3 -o '%T')' 60 s after its slurmd came back"
	sleep 1
done
assert_no_node_drained
run_srun after --dist-mode=ddp -w tcn3 -N1 bash -c 'echo "AFTER $RANK $WORLD_SIZE"'
[ "$RC" -eq 0 ] || { cat "$WORK/after.err" >&2; fail "srun on tcn3 exited $RC after the restart"; }
assert_contains "$WORK/after.out" "AFTER 0 1"
