# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# The part of the site-profile tests (site_jobcontainer.sh, site_cgroup.sh)
# that is the same under every profile (issue 21): every mode in one
# allocation, step after step, and a requeued job. Sourced after lib.sh on
# the profile's own cluster; SITE_WHERE says where, for the messages
# ("under a job container").

# Every mode in one job, step after step, as a batch script would run them:
# the job's /tmp lasts as long as the job, so the hccn.conf files and any
# step directory a step failed to remove are still there for the next step
# to see. Each step's output, errors and exit status land in $WORK.
cp "$TESTS_DIR/mpi_allreduce.py" "$TESTS_DIR/tf_connect.py" "$TESTS_DIR/ascend_check.py" "$WORK/"
# On a Slurm without PMIx mode mpi's native steps are for an MPI other than
# Open MPI 5+ (mpi_native.sh): a PATH without that mpirun.
[ "$XMPI" = pmix ] || files_path=$(path_without_ompi salloc sbatch scontrol sleep hostname bash paste ls wc dirname taskset sed touch)
cat >"$WORK/steps.sh" <<'STEPS'
set -u
W=$1 PY=$2 XMPI=$3 TRAIN=$4 SET=$5
step() {
	local name=$1
	shift
	rc=0
	timeout 120 srun "$@" >"$W/$name.out" 2>"$W/$name.err" || rc=$?
	echo "$rc" >"$W/$name.rc"
}
export DIST_HCCN_CONF=/tmp/dist-test-hccn.conf
step hccn -N3 -n3 --ntasks-per-node=1 bash -c '
	k=${SLURMD_NODENAME#tcn}
	for d in 0 1 2 3 4 5 6 7; do echo "address_$d=192.168.$((100 + d)).$k"; done >"$DIST_HCCN_CONF"'
step files --mpi="$XMPI" --dist-mode=mpi -N3 --ntasks-per-node=2 bash -c '
	echo "$(paste -sd" " "$OMPI_MCA_orte_default_hostfile") $(ls "$(dirname "$OMPI_MCA_orte_default_hostfile")" | paste -sd" ") FILES-OK"'
if [ "$SET" = all ] && [ "$XMPI" = pmix ]; then
	step native --mpi=pmix --dist-mode=mpi -N3 --ntasks-per-node=2 "$PY" "$W/mpi_allreduce.py"
	step launcher --dist-mode=mpi --dist-launcher -N3 -n3 --ntasks-per-node=1 \
		bash -c "exec mpirun --allow-run-as-root -np 3 $PY $W/mpi_allreduce.py"
fi
[ "$SET" = all ] && step ps --mpi="$XMPI" --dist-mode=ps --dist-ps=2 -N3 --ntasks-per-node=2 "$PY" "$W/tf_connect.py"
[ "$SET" = all ] && step ascend --mpi="$XMPI" --dist-mode=ascend -N3 --ntasks-per-node=2 "$PY" "$W/ascend_check.py"
[ "$SET" = all ] && step bind --mpi="$XMPI" --dist-mode=ddp --dist-explain -N3 --ntasks-per-node=2 --gpus-per-node=2 bash -c '
	d=$(echo "${TMPDIR:-/tmp}"/slurm-dist.job$SLURM_JOB_ID.step$SLURM_STEP_ID.*)
	test -s "$d/topology.xml" && test -s "$d/bind-plan" && echo "BIND-OK gpus=$CUDA_VISIBLE_DEVICES cpus=$(taskset -cp $$ | sed "s/.*: //")"'
[ "$SET" = all ] && step check --mpi="$XMPI" --dist-mode=ddp --dist-check=net -N3 --ntasks-per-node=2 "$PY" "$TRAIN"
[ "$SET" = all ] && DIST_HCCN_CONF=/tmp/none.conf step bad --mpi="$XMPI" --dist-mode=ascend -N3 -n3 --ntasks-per-node=1 \
	bash -c "touch $W/bad-started"
# No step left its directory behind in the job's /tmp, and the one a step
# is running in is its own.
step left -N3 -n3 --ntasks-per-node=1 bash -c 'echo "LEFT $(ls -d /tmp/slurm-dist.* 2>/dev/null | wc -l)"'
step own --mpi="$XMPI" --dist-mode=mpi -N3 -n3 --ntasks-per-node=1 bash -c \
	'echo "OWN $(ls -d /tmp/slurm-dist.* | wc -l) $(ls -d /tmp/slurm-dist.job$SLURM_JOB_ID.step$SLURM_STEP_ID.*)"'
STEPS
# SET: all, or only the steps that show the step directory's life (files, left, own).
run_steps() {
	rm -f "$WORK"/*.rc
	RC=0
	PATH=${files_path:-$PATH} timeout 400 salloc -N3 --ntasks-per-node=2 --gpus-per-node=2 \
		bash "$WORK/steps.sh" "$WORK" "$PY" "$XMPI" "$TRAIN" "$1" >"$WORK/salloc.out" 2>"$WORK/salloc.err" || RC=$?
	[ "$RC" -eq 0 ] || { cat "$WORK/salloc.err" >&2; fail "the allocation of the mode steps exited $RC"; }
}
step_ok() {
	[ "$(cat "$WORK/$1.rc" 2>/dev/null)" = 0 ] || {
		cat "$WORK/$1.err" >&2
		fail "step $1 $SITE_WHERE exited $(cat "$WORK/$1.rc" 2>/dev/null || echo '(not run)')"
	}
}

# After run_steps all: what each mode's step must have shown.
check_mode_steps() {
	step_ok hccn
	# Mode mpi: every task reads the node's hostfile from the step's directory,
	# made in the job's own /tmp (issue 21: it was made outside the job's mount
	# namespace, and every task failed "cannot use /tmp/slurm-dist.job...").
	step_ok files
	assert_count "$WORK/files.out" '^tcn1 slots=2 tcn2 slots=2 tcn3 slots=2 .*FILES-OK$' 6
	if [ "$XMPI" = pmix ]; then
		step_ok native
		for r in 0 1 2 3 4 5; do assert_count "$WORK/native.out" "^MPI-OK rank=$r size=6 " 1; done
		step_ok launcher
		assert_count "$WORK/launcher.out" '^MPI-OK rank=[0-2] size=3 host=tcn[1-3]$' 3
	fi
	step_ok ps
	assert_count "$WORK/ps.out" '^TF-OK type=ps index=[01] accepted=5 connected=5$' 2
	assert_count "$WORK/ps.out" '^TF-OK type=worker index=[0-3] accepted=5 connected=5$' 4
	step_ok ascend
	for k in 1 2 3; do
		assert_count "$WORK/ascend.out" "^ASC-OK rank=[0-5] server=10\.77\.0\.$k device=[01] ip=192\.168\.10[01]\.$k host=tcn$k$" 2
	done
	# Binding: one topology discovery a node, shared through the step's
	# directory; each task of a node on its own GPU and CPUs.
	step_ok bind
	assert_count "$WORK/bind.out" '^BIND-OK gpus=0,1 cpus=' 6
	for k in 1 2 3; do
		assert_count "$WORK/bind.err" "^dist-shim: tcn$k rank [0-5]: 0 *0 " 1
		assert_count "$WORK/bind.err" "^dist-shim: tcn$k rank [0-5]: 1 *1 " 1
	done
	step_ok check
	assert_ddp_ok "$WORK/check.out" 6
	# Bad input: one line, nothing started.
	[ "$(cat "$WORK/bad.rc")" != 0 ] || fail "mode ascend without its hccn.conf exited 0 $SITE_WHERE"
	assert_contains "$WORK/bad.err" "/tmp/none.conf"
	[ ! -e "$WORK/bad-started" ] || fail "a task started without its hccn.conf"
}

# No step left its directory in the job's /tmp or the node's, and none
# logged an error at its end.
check_dirs_removed() {
	step_ok left
	assert_count "$WORK/left.out" '^LEFT 0$' 3
	step_ok own
	assert_count "$WORK/own.out" '^OWN 1 /tmp/slurm-dist\.job[0-9]*\.step[0-9]*\.[A-Za-z0-9]*$' 3
	for k in 1 2 3; do
		[ -z "$(ls -d "$TC_DIR/tmp/tcn$k"/slurm-dist.* 2>/dev/null)" ] ||
			fail "a step directory stayed in tcn$k's own /tmp: $(ls -d "$TC_DIR/tmp/tcn$k"/slurm-dist.*)"
	done
	cat "$TC_DIR"/log/slurmd.tcn*.log >"$WORK/slurmd.log"
	assert_not_contains "$WORK/slurmd.log" "step's directory"
	assert_no_node_drained
	# Nor is any job left completing (its epilog runs after its end: bounded).
	local deadline=$((SECONDS + 30))
	while squeue -h -t CG -o %i | grep -q .; do
		[ $SECONDS -lt $deadline ] || fail "still completing 30 s after its end: $(squeue -h -t CG -o '%i %N' | paste -sd' ')"
		sleep 1
	done
}

# A requeued job: each attempt's mode mpi step has its own directory (under
# a job container, in the new attempt's own job container and /tmp).
check_requeue() {
	# Under a job container a requeued job gets a new one, so a new /tmp:
	# each attempt's mode mpi step has its own directory there. The second
	# attempt starts 10 s after the requeue (release_requeued): at once,
	# Slurm 22.05's slurmd starts it without a prolog or extern step, so
	# without a job container ("container_p_join: open failed for
	# .../.ns"), with or without the plugin.
	cat >"$WORK/requeue.sh" <<JOB
#!/bin/bash
#SBATCH --dist-mode=mpi -N3 --ntasks-per-node=1 --requeue --open-mode=append
srun --mpi=$XMPI bash -c 'echo "ATTEMPT \${SLURM_RESTART_COUNT:-0} \$(hostname) \$(paste -sd" " "\$OMPI_MCA_orte_default_hostfile") \$(ls -d /tmp/slurm-dist.* | wc -l)"'
if [ -z "\${SLURM_RESTART_COUNT:-}" ]; then
	scontrol requeue \$SLURM_JOB_ID
	sleep 120 # ended by the requeue
	echo NOT-REQUEUED
	exit 1
fi
JOB
	JOB=$(PATH=${files_path:-$PATH} sbatch --parsable -o "$WORK/requeue.out" "$WORK/requeue.sh") ||
		fail "sbatch requeue.sh was refused"
	release_requeued "$JOB" 120
	wait_job "$JOB" 120
	[ "$JOB_STATE" = COMPLETED ] || { cat "$WORK/requeue.out" >&2; fail "the requeued job ended $JOB_STATE"; }
	for a in 0 1; do
		assert_count "$WORK/requeue.out" "^ATTEMPT $a tcn[1-3] tcn1 slots=1 tcn2 slots=1 tcn3 slots=1 1$" 3
	done
	assert_not_contains "$WORK/requeue.out" NOT-REQUEUED
}
