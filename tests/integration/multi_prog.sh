#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --multi-prog. On Slurm 23.11 and later the plugin prepends the shim to each
# task's own line (spank_prepend_task_argv): every line is wrapped with its
# own program and arguments, in every mode (ddp, mpi, ps, ascend). On 22.05 each task execs its own
# line, which the plugin cannot reach, so the step is refused with a clear
# message and no task of it starts. Without --dist-mode, --multi-prog works
# as usual on both.
source "$(dirname "$0")/lib.sh"

cat >show.sh <<'SH'
#!/bin/sh
# One line per task: its --multi-prog line, task id and contract.
tf=$(printf '%s' "${TF_CONFIG:-}" | sed -n 's/.*"task":{"type":"\([a-z]*\)","index":\([0-9]*\)}.*/\1:\2/p')
table=no
[ -f "${RANK_TABLE_FILE:-/nonexistent}" ] && table=yes
echo "MP line=$1 task=$2 rank=${RANK:-unset} world=${WORLD_SIZE:-unset} master=${MASTER_ADDR:-unset} tf=${tf:-none} shim=${DIST_SHIM_MODE:-gone} table=$table device=${DEVICE_ID:-none}"
SH
chmod +x show.sh
printf '0 %s first %%t\n1-5 %s rest %%t\n' "$WORK/show.sh" "$WORK/show.sh" >show.conf
printf '0 touch %s/started-0\n* touch %s/started-rest\n' "$WORK" "$WORK" >mp.conf

# Each task's line ran, with its own arguments, under the mode's contract.
check_lines() {
	local out=$1 t line
	assert_count "$out" '^MP ' 6
	for ((t = 0; t < 6; t++)); do
		line=rest
		[ "$t" -eq 0 ] && line=first
		assert_count "$out" "^MP line=$line task=$t rank=$t world=6 master=10\.77\.0\.1 " 1
	done
	assert_not_contains "$out" "shim=ddp"
}

if slurm_at_least 23.11; then
	run_srun ddp --dist-mode=ddp -N3 --ntasks-per-node=2 --multi-prog show.conf
	[ "$RC" -eq 0 ] || { cat "$WORK/ddp.err" >&2; fail "ddp --multi-prog exited $RC"; }
	check_lines "$WORK/ddp.out"
	assert_count "$WORK/ddp.out" ' tf=none ' 6

	# Open MPI 5+ needs PMIx for a native launch (mpi_native): without it,
	# an MPI the shim does not take for Open MPI 5+.
	mpi_path=$PATH
	[ "$XMPI" = pmix ] || mpi_path=$(path_without_ompi sed)
	PATH=$mpi_path run_srun mpi --mpi=$XMPI --dist-mode=mpi -N3 --ntasks-per-node=2 --multi-prog show.conf
	[ "$RC" -eq 0 ] || { cat "$WORK/mpi.err" >&2; fail "mpi --multi-prog exited $RC"; }
	check_lines "$WORK/mpi.out"

	# ps needs an exchange: PMIx where Slurm has it, else PMI2.
	run_srun ps --mpi=$XMPI --dist-mode=ps --dist-ps=1 -N3 --ntasks-per-node=2 --multi-prog show.conf
	[ "$RC" -eq 0 ] || { cat "$WORK/ps.err" >&2; fail "ps --multi-prog exited $RC"; }
	assert_count "$WORK/ps.out" '^MP line=first task=0 .* tf=ps:0 ' 1
	for ((t = 1; t < 6; t++)); do
		assert_count "$WORK/ps.out" "^MP line=rest task=$t .* tf=worker:$((t - 1)) " 1
	done

	# ascend: every line also gets its rank table and device.
	export DIST_HCCN_CONF=/tmp/dist-test-hccn.conf
	write_hccn_confs
	run_srun ascend --mpi=$XMPI --dist-mode=ascend -N3 --ntasks-per-node=2 --multi-prog show.conf
	[ "$RC" -eq 0 ] || { cat "$WORK/ascend.err" >&2; fail "ascend --multi-prog exited $RC"; }
	check_lines "$WORK/ascend.out"
	assert_count "$WORK/ascend.out" ' table=yes device=[01]$' 6

	# A real training run whose lines differ.
	printf '0 %s %s --announce %s/first-line\n1-3 %s %s\n' "$PY" "$TRAIN" "$WORK" "$PY" "$TRAIN" >train.conf
	run_srun train --dist-mode=ddp -N2 -n4 --multi-prog train.conf
	[ "$RC" -eq 0 ] || { cat "$WORK/train.err" >&2; fail "training --multi-prog exited $RC"; }
	assert_ddp_ok "$WORK/train.out" 4
	[ -e "$WORK/first-line" ] || fail "line 0's own arguments did not reach rank 0"
else
	run_srun refused --dist-mode=ddp -N1 -n2 --multi-prog mp.conf
	[ "$RC" -ne 0 ] || fail "--dist-mode with --multi-prog exited 0"
	assert_contains "$WORK/refused.err" "error: dist: --dist-mode cannot wrap --multi-prog steps"
	[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a --multi-prog task started"
fi

run_srun plain -N1 -n2 --multi-prog mp.conf
[ "$RC" -eq 0 ] || fail "plain --multi-prog exited $RC"
[ -e "$WORK/started-0" ] && [ -e "$WORK/started-rest" ] || fail "plain --multi-prog did not run"
assert_no_node_drained
