#!/bin/bash
# --multi-prog: on Slurm 22.05 each task execs its own line, which the plugin
# cannot wrap, so the step is refused with a clear message and no task of it
# starts; without --dist-mode, --multi-prog works as usual.
source "$(dirname "$0")/lib.sh"

printf '0 touch %s/started-0\n* touch %s/started-rest\n' "$WORK" "$WORK" >mp.conf
run_srun refused --dist-mode=ddp -N1 -n2 --multi-prog mp.conf
[ "$RC" -ne 0 ] || fail "--dist-mode with --multi-prog exited 0"
assert_contains "$WORK/refused.err" "error: dist: --dist-mode cannot wrap --multi-prog steps"
[ -z "$(ls "$WORK"/started-* 2>/dev/null)" ] || fail "a --multi-prog task started"

run_srun plain -N1 -n2 --multi-prog mp.conf
[ "$RC" -eq 0 ] || fail "plain --multi-prog exited $RC"
[ -e "$WORK/started-0" ] && [ -e "$WORK/started-rest" ] || fail "plain --multi-prog did not run"
assert_no_node_drained
