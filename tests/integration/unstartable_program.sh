#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A program that cannot be started: a message naming it, 127 like a shell,
# and, when only one node lacks it, no task of the step starts it and nobody
# waits out the fence timeout (the failing task aborts the PMIx job).
source "$(dirname "$0")/lib.sh"

run_srun missing --dist-mode=ddp -N1 -n1 /nonexistent/prog
[ "$RC" -ne 0 ] || fail "srun of a missing program exited 0"
assert_contains "$WORK/missing.err" "cannot execute '/nonexistent/prog': No such file or directory"
assert_contains "$WORK/missing.err" "exit code 127"

# /tmp is private to each node: put the program on tcn1 only.
prog=/tmp/dist-test-prog-$$
run_srun setup -w tcn1 -N1 -n1 bash -c "printf '#!/bin/sh\ntouch $WORK/started-\$(hostname)\n' >$prog && chmod +x $prog"
[ "$RC" -eq 0 ] || fail "could not set up $prog on tcn1"
start=$SECONDS
run_srun partial --mpi=$XMPI --dist-mode=ddp -w tcn1,tcn2 -N2 -n2 "$prog"
[ "$RC" -ne 0 ] || fail "srun exited 0 though tcn2 lacks the program"
assert_contains "$WORK/partial.err" "cannot execute '$prog'"
[ ! -e "$WORK/started-tcn1" ] || fail "tcn1 started the program although its peer could not"
echo "step ended after $((SECONDS - start)) s (fence timeout is 120 s)"
run_srun cleanup -w tcn1 -N1 -n1 rm -f "$prog"
assert_no_node_drained

# Present but not executable: 126, like a shell.
printf '#!/bin/sh\n' >"$WORK/not-executable"
chmod 644 "$WORK/not-executable"
run_srun noexec --dist-mode=ddp -N1 -n1 "$WORK/not-executable"
assert_contains "$WORK/noexec.err" "cannot execute '$WORK/not-executable': Permission denied"
assert_contains "$WORK/noexec.err" "exit code 126"
