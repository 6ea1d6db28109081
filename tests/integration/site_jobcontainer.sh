#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A site with a job container (issue 21): its own 3-node cluster with
# contrib/slurm/testcluster.sh's profile jobcontainer (job_container/tmpfs,
# namespace/tmpfs from 26.05; PrologFlags=Contain), every job with a private
# /tmp and /dev/shm, as many sites run. It runs in new PID, network, mount
# and UTS namespaces, so it neither sees nor disturbs the suite's own cluster
# (fixture "cluster"), and everything it started ends with it.
#
# What it shows, today:
#   - the profile works: jobs have their own /tmp, ten jobs in a row start;
#   - --dist-mode=ddp trains across 3 nodes with the PyTorch client (on 24.11
#     with PMIX_MCA_gds=hash, see below);
#   - every mode in one job, step after step: mpi (hostfiles, mpi4py native
#     and under mpirun in the launcher form), ps (every TF_CONFIG address
#     bound and connected), ascend (rank table against each node's
#     hccn.conf), binding shared through the step's directory, the network
#     check, a bad input; the step directory made in the job's own /tmp
#     (issue 21: it was made outside the job's namespace), none left in the
#     job's /tmp or the node's, and no error logged at a step's end;
#   - the same from 24.11 with SlurmdParameters=contain_spank.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ "${SITE_JC_INNER:-}" != 1 ]; then
	[ -n "${TC_PLUGIN:-}" ] && [ -n "${TC_SHIM:-}" ] || {
		echo "FAIL: site_jobcontainer: TC_PLUGIN and TC_SHIM must name the build's plugin and shim" >&2
		exit 1
	}
	# Its own cluster directory beside the suite's.
	export TC_DIR=${TC_DIR:-/var/lib/slurm-dist-tc}-jobcontainer
	export SITE_JC_INNER=1 TC_PROFILE=jobcontainer TC_NODES=3
	# shellcheck disable=SC2016 # expanded by the inner shell
	exec unshare --pid --fork --net --mount --uts --propagation private -- bash -c '
		mount -t proc proc /proc
		mount -t tmpfs -o mode=0755 tmpfs /run
		ip link set lo up
		hostname localhost
		exec "$@"' inner "$0" "$@"
fi

tc=$here/../../contrib/slurm/testcluster.sh
TC_PLUGIN_ARGS=port_range=24000-24999 timeout 180 "$tc" up
trap '"$tc" down >/dev/null 2>&1 || true' EXIT
source "$here/lib.sh"

# The profile is on: a file a job writes to /tmp is in the job's own /tmp,
# not in the node's (testcluster.sh's $TC_DIR/tmp/tcnK), and the next job
# does not see it.
run_srun tmp1 -N3 -n3 --ntasks-per-node=1 bash -c 'echo "$SLURM_JOB_ID" >/tmp/jc-probe && cat /tmp/jc-probe'
[ "$RC" -eq 0 ] || { cat "$WORK/tmp1.err" >&2; fail "a job under job_container/tmpfs failed ($RC)"; }
assert_count "$WORK/tmp1.out" '^[0-9][0-9]*$' 3
for k in 1 2 3; do
	[ ! -e "$TC_DIR/tmp/tcn$k/jc-probe" ] || fail "the job wrote to tcn$k's own /tmp: no job container"
done
run_srun tmp2 -N3 -n3 --ntasks-per-node=1 bash -c 'if [ -e /tmp/jc-probe ]; then echo SEEN; else echo PRIVATE; fi'
[ "$RC" -eq 0 ] || { cat "$WORK/tmp2.err" >&2; fail "second job failed ($RC)"; }
assert_count "$WORK/tmp2.out" '^PRIVATE$' 3

# Every job starts (Linux 6.18's namespace ids made this flaky before
# testcluster.sh chose the CPU of each node's namespace; docs/testing.md).
for i in $(seq 10); do
	run_srun "true$i" -N3 true
	[ "$RC" -eq 0 ] || { cat "$WORK/true$i.err" >&2; fail "job $i of 10 in a row failed ($RC)"; }
done

# ddp with the real PyTorch client. On Slurm 24.11 (PMIx 5) the PMIx client
# in a task cannot open the server's shared-memory store (gds/shmem2) under a
# job container: "PMIX_ERR_FILE_OPEN_FAILURE in file ... gds_shmem2.c", and
# the shim finds no pmix.lrank. A Slurm/PMIx matter, not the plugin's:
# PMIX_MCA_gds=hash (a site can set it in mpi.conf's PMIxEnv) avoids it.
# Checked as such, so the check notices when it is no longer needed.
run_srun train --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN"
if [ "$RC" -ne 0 ] && grep -q 'gds_shmem2' "$WORK/train.err"; then
	echo "site_jobcontainer: KNOWN (PMIx 5 under a job container): gds/shmem2 fails; again with PMIX_MCA_gds=hash"
	export PMIX_MCA_gds=hash
	run_srun train --mpi="$XMPI" --dist-mode=ddp -N3 --ntasks-per-node=2 $PY "$TRAIN"
fi
[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "ddp under a job container: srun exited $RC"; }
assert_ddp_ok "$WORK/train.out" 6

# shellcheck disable=SC2034 # read by site_steps.sh
SITE_WHERE="under a job container"
source "$here/site_steps.sh"
run_steps all
check_mode_steps
check_dirs_removed
echo "site_jobcontainer: every mode works under job_container/tmpfs; no step left its directory"

check_requeue
echo "site_jobcontainer: a requeued job's second attempt has its own step directory"

# From 24.11 a site can set SlurmdParameters=contain_spank: the plugin's
# user_init then runs inside the job's namespace (and makes the directory
# there) but slurm_spank_exit does not: the removal must still find it.
if slurm_at_least 24.11; then
	sed -i 's/^SlurmdParameters=config_overrides$/SlurmdParameters=config_overrides,contain_spank/' "$SLURM_CONF"
	grep -q '^SlurmdParameters=.*contain_spank' "$SLURM_CONF" || fail "could not set contain_spank in $SLURM_CONF"
	# Only slurmd reads it: restart them (no `scontrol reconfigure`, which
	# from 23.11 restarts slurmd itself and races with this restart).
	restart_all_slurmd
	run_steps dir
	step_ok files
	assert_count "$WORK/files.out" '^tcn1 slots=2 tcn2 slots=2 tcn3 slots=2 .*FILES-OK$' 6
	check_dirs_removed
	echo "site_jobcontainer: with SlurmdParameters=contain_spank, mode mpi works and no step left its directory"
fi
echo "site_jobcontainer: OK"
