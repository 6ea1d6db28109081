#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPANK behaviour that Slurm's release notes changed, checked on the release
# the cluster runs (docs/design.md, "Per-release SPANK behaviour"). The
# expected outcome is the same on 22.05, 24.11 and 26.05; what differs is how
# Slurm gets there:
# - --export=NONE|NIL: sbatch puts the option in its own environment as
#   SLURM_SPANK__SLURM_SPANK_OPTION_dist_dist_mode, a SLURM_* variable, which
#   every release hands to the batch script (23.11 made "SPANK option
#   variables" explicit); srun sends its options in the launch message,
#   whatever --export says. So every step of the job is wrapped.
# - Remote option callbacks: before 24.05 slurmstepd calls them twice (launch
#   message, then the step's environment), from 24.05 once. The plugin only
#   stores the value there and checks it in task_init, on every task.
# - From 25.05 any non-zero return is an error: the plugin returns 0 or -1
#   only, so refusals are one line, non-zero exit and nothing started, and
#   valid uses are not turned into errors.
source "$(dirname "$0")/lib.sh"

OPT_VAR=SLURM_SPANK__SLURM_SPANK_OPTION_dist_dist_mode
# The name under which srun puts its options into the step's environment,
# the second route slurmstepd reads them from.
STEP_VAR=_SLURM_SPANK_OPTION_dist_dist_mode

# Every rank 0..N-1 exactly once in FILE's lines starting with PREFIX.
assert_ranks() {
	local file=$1 prefix=$2 n=$3 r
	assert_count "$file" "^${prefix}RANK=" "$n"
	for ((r = 0; r < n; r++)); do
		assert_count "$file" "^${prefix}RANK=$r\$" 1
	done
}

# 1. sbatch --export=NONE (and NIL, and a list): the option reaches every
# srun step in the job, relative program names included, and
# --dist-mode=none still turns it off for one step.
cat >job.sh <<'JOB'
#!/bin/bash
env | grep -c '^SLURM_SPANK__SLURM_SPANK_OPTION_dist_dist_mode=ddp$' | sed 's/^/batch: /'
srun -N2 --ntasks-per-node=2 /usr/bin/env | grep -E '^(RANK|MASTER_ADDR)=' | sed 's/^/abs: /'
srun -N2 --ntasks-per-node=2 env | grep -E '^RANK=' | sed 's/^/rel: /'
srun -N2 --dist-mode=none /usr/bin/env | grep -E '^(RANK|SLURM_PROCID|MASTER_ADDR)=' | sed 's/^/off: /'
JOB
chmod +x job.sh
for exp in NONE NIL USE_LIBUV; do
	out=$WORK/export_$exp.out
	run_sbatch "$out" --export=$exp --dist-mode=ddp -N2 --ntasks-per-node=2 "$WORK/job.sh"
	[ "$JOB_STATE" = COMPLETED ] || { cat "$out" >&2; fail "sbatch --export=$exp job ended $JOB_STATE"; }
	assert_count "$out" '^batch: 1$' 1
	assert_ranks "$out" 'abs: ' 4
	assert_count "$out" '^abs: MASTER_ADDR=10.77.0.1$' 4
	assert_ranks "$out" 'rel: ' 4
	assert_count "$out" '^off: SLURM_PROCID=' 4
	assert_count "$out" '^off: \(RANK\|MASTER_ADDR\)=' 0
done

# 2. srun --export=NONE: the option arrives in the launch message; task_init
# sees it on every task (two per node).
run_srun srun_none --export=NONE --dist-mode=ddp -N2 -n4 /usr/bin/env
[ "$RC" -eq 0 ] || { cat "$WORK/srun_none.err" >&2; fail "srun --export=NONE --dist-mode=ddp exited $RC"; }
assert_ranks "$WORK/srun_none.out" '' 4
assert_count "$WORK/srun_none.out" '^DIST_SHIM' 0

# 3. A bad value only slurmstepd sees (through the step's environment, the
# remote route srun does not check): every task fails in task_init with
# the plugin's one line, none starts, no node is drained.
run_srun remote_bad --export=ALL,$STEP_VAR=bogus -N2 -n4 bash -c "touch $WORK/started_remote"
[ "$RC" -ne 0 ] || fail "a step whose remote --dist-mode is bogus exited 0"
assert_count "$WORK/remote_bad.err" "error: dist: invalid --dist-mode 'bogus': valid modes are none|ddp|mpi|ps|ascend" 4
[ ! -e "$WORK/started_remote" ] || fail "a task started with a bogus remote --dist-mode"
assert_no_node_drained

# Both routes at once with different values: the value srun was given
# (launch message) is the one the tasks get. Before 24.05 the environment's
# is processed after it, but srun has rewritten that variable with its own.
run_srun both_routes --export=ALL,$STEP_VAR=bogus --dist-mode=ddp -N1 -n2 /usr/bin/env
[ "$RC" -eq 0 ] || { cat "$WORK/both_routes.err" >&2; fail "srun --dist-mode=ddp with a stale step variable exited $RC"; }
assert_ranks "$WORK/both_routes.out" '' 2

# 4. Refusals: one line from the plugin, non-zero exit, nothing submitted or
# started, no node drained. On 25.05+ Slurm turns any non-zero return into
# an error; the plugin returns -1 for these and 0 otherwise.
marker="touch $WORK/started"
expect_refused() {
	local what=$1 err=$2 out=${3:-}
	[ "$RC" -ne 0 ] || fail "$what exited 0"
	assert_count "$err" "error: dist: " 1
	assert_contains "$err" "invalid --dist-mode 'bogus': valid modes are none|ddp|mpi|ps|ascend"
	[ ! -e "$WORK/started" ] || fail "$what started a task"
	[ -z "$out" ] || [ ! -s "$out" ] || fail "$what printed a job id: $(cat "$out")"
}
run_srun bad_srun --dist-mode=bogus -N2 -n2 bash -c "$marker"
expect_refused "srun --dist-mode=bogus" "$WORK/bad_srun.err"
SLURM_SPANK__SLURM_SPANK_OPTION_dist_dist_mode=bogus run_srun bad_inherited -N2 -n2 bash -c "$marker"
expect_refused "srun with an inherited bogus mode" "$WORK/bad_inherited.err"
for how in option inherited; do
	RC=0
	if [ $how = option ]; then
		timeout 60 sbatch --dist-mode=bogus --wrap "$marker" >"$WORK/sb_$how.out" 2>"$WORK/sb_$how.err" || RC=$?
	else
		env "$OPT_VAR=bogus" timeout 60 sbatch --wrap "$marker" >"$WORK/sb_$how.out" 2>"$WORK/sb_$how.err" || RC=$?
	fi
	expect_refused "sbatch ($how bogus)" "$WORK/sb_$how.err" "$WORK/sb_$how.out"
done
RC=0
timeout 60 salloc --dist-mode=bogus -N1 bash -c "$marker" >"$WORK/salloc.out" 2>"$WORK/salloc.err" || RC=$?
expect_refused "salloc --dist-mode=bogus" "$WORK/salloc.err"
# A check across options (init_post_opt): the same one line.
run_srun needs_mode --dist-launcher -N1 bash -c "$marker"
[ "$RC" -ne 0 ] || fail "srun --dist-launcher without --dist-mode exited 0"
assert_count "$WORK/needs_mode.err" "error: dist: " 1
assert_contains "$WORK/needs_mode.err" "--dist-launcher needs --dist-mode"
[ ! -e "$WORK/started" ] || fail "srun --dist-launcher without --dist-mode started a task"

# Valid uses, argument and flag options together, stay successes.
run_srun valid --dist-mode=ddp --dist-compat=kubeflow --dist-bind=none --dist-explain -N2 -n2 /usr/bin/env
[ "$RC" -eq 0 ] || { cat "$WORK/valid.err" >&2; fail "valid options exited $RC"; }
assert_ranks "$WORK/valid.out" '' 2
assert_count "$WORK/valid.err" "error:" 0
assert_no_node_drained
