#!/bin/bash
# --dist-mode=mpi when the step's directory cannot be used safely (open to
# others, or a symlink planted in its place): one clear line, non-zero exit,
# no task starts the program, the step ends at once, no node drained.
source "$(dirname "$0")/lib.sh"
uid=$(id -u)

mkdir -p "$WORK/open/slurm-dist.$uid"
chmod 755 "$WORK/open/slurm-dist.$uid"
TMPDIR=$WORK/open run_srun open --mpi=$XMPI --dist-mode=mpi -N2 --ntasks-per-node=2 \
	bash -c "touch $WORK/started-\$SLURM_PROCID"
[ "$RC" -ne 0 ] || fail "srun exited 0 with an unsafe step directory"
assert_contains "$WORK/open.err" "refusing $WORK/open/slurm-dist.$uid: it must belong to uid $uid with mode 0700; remove it or set TMPDIR elsewhere"
[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a task started the program"

mkdir -p "$WORK/link" "$WORK/elsewhere"
chmod 700 "$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$WORK/link/slurm-dist.$uid"
TMPDIR=$WORK/link run_srun link --dist-mode=mpi -N1 -n1 bash -c "touch $WORK/started-link"
[ "$RC" -ne 0 ] || fail "srun exited 0 with a symlinked step directory"
assert_contains "$WORK/link.err" "cannot open $WORK/link/slurm-dist.$uid: Not a directory (a symlink is refused)"
[ ! -e "$WORK/started-link" ] || fail "the task started the program"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "something was written through the symlink"
assert_no_node_drained
