#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --dist-mode=mpi when the step's directory cannot be used safely (open to
# others, a symlink in its place, another user's, not a directory): one
# line naming the real cause, non-zero exit, no task starts the program, the
# step ends at once, no node drained. The shim is given the directory the
# way the plugin gives it (DIST_SHIM_STEPDIR=PID:PATH for the process that
# execs the shim: 'exec env' keeps bash's pid).
source "$(dirname "$0")/lib.sh"
uid=$(id -u)

# Runs the shim by hand on -N2 --ntasks-per-node=2 with DIR as the step's
# directory; the output goes to $WORK/NAME.out/.err.
with_dir() {
	local name=$1 dir=$2
	run_srun "$name" --mpi=$XMPI -N2 --ntasks-per-node=2 bash -c \
		"exec env DIST_SHIM_STEPDIR=\$\$:$dir $SHIM --mode mpi -- bash -c 'touch $WORK/started-\$SLURM_PROCID'"
	[ "$RC" -ne 0 ] || fail "srun exited 0 with the step directory $dir ($name)"
	[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a task started the program ($name)"
}

mkdir -p "$WORK/open"
chmod 755 "$WORK/open"
with_dir open "$WORK/open"
assert_contains "$WORK/open.err" "refusing $WORK/open for the step's files: group or others can use it (mode 0755, must be 0700)"

mkdir -p "$WORK/elsewhere"
chmod 700 "$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$WORK/link"
with_dir link "$WORK/link"
assert_contains "$WORK/link.err" "refusing $WORK/link for the step's files: it is a symlink, and the step's directory is never reached through one"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "something was written through the symlink"

mkdir -p "$WORK/theirs"
chmod 700 "$WORK/theirs"
chown 4242 "$WORK/theirs"
with_dir theirs "$WORK/theirs"
assert_contains "$WORK/theirs.err" "refusing $WORK/theirs for the step's files: it belongs to uid 4242, not to you (uid $uid); another user made it"

touch "$WORK/file"
with_dir file "$WORK/file"
assert_contains "$WORK/file.err" "refusing $WORK/file for the step's files: it is not a directory"
assert_no_node_drained
