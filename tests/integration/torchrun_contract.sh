#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The contract test of torchrun parity: the same probe (env_probe.py) under a
# real torchrun --nproc_per_node=2 on one node and under each launch form of
# the plugin; torchrun_contract.py fails on any variable of torchrun's worker
# set that a form lacks or means differently. Then @record's error file:
# written by the failing rank into the step's private directory and named
# by the shim's report.
source "$(dirname "$0")/lib.sh"
use_torchrun_compat
cp "$TESTS_DIR/env_probe.py" "$WORK/"
PROBE=$WORK/env_probe.py
mkdir -p "$WORK/ref" "$WORK/exchange" "$WORK/slurmenv" "$WORK/pernode" "$WORK/record"

# Debian's torch 1.13 on Python 3.11 crashes on torchrun's default
# --redirects/--tee (../shared/guide/slurm-facts.md); a map for a rank that
# does not exist avoids it. torchrun looks up the unresolvable node name.
export PET_REDIRECTS=9:1 PET_TEE=9:1
export RES_OPTIONS="timeout:1 attempts:1"

# The reference: torchrun on one node, untouched by the plugin. Not
# --standalone: its rendezvous publishes the node's host name, which does
# not resolve here, and torch 2.x's agent then never connects to its own
# store; the static rendezvous on 127.0.0.1 gives the workers the same set.
run_srun ref --dist-mode=none -N1 -n1 bash -c \
	"$PY $PROBE --out $WORK/ref --parent &&
	 $PY -m torch.distributed.run --nnodes=1 --nproc_per_node=2 --master_addr=127.0.0.1 \
	 --master_port=29517 $PROBE --out $WORK/ref"
[ "$RC" -eq 0 ] || { cat "$WORK/ref.err" >&2; fail "the reference torchrun exited $RC"; }
[ "$(ls "$WORK/ref" | grep -c '^ENV-')" -eq 2 ] || fail "torchrun's 2 workers did not both report"

# One task per GPU with the exchange, and without (Slurm's variables).
run_srun exchange --mpi="$XMPI" --dist-mode=ddp -N2 --ntasks-per-node=2 $PY "$PROBE" --out "$WORK/exchange" --init
[ "$RC" -eq 0 ] || { cat "$WORK/exchange.err" >&2; fail "--mpi=$XMPI exited $RC"; }
run_srun slurmenv --mpi=none --dist-mode=ddp -N2 --ntasks-per-node=2 $PY "$PROBE" --out "$WORK/slurmenv" --init
[ "$RC" -eq 0 ] || { cat "$WORK/slurmenv.err" >&2; fail "--mpi=none exited $RC"; }
# One task per node running torchrun, which the plugin's PET_* configure.
run_srun pernode --dist-mode=ddp -N2 --ntasks-per-node=1 \
	$PY -m torch.distributed.run --nproc_per_node=2 "$PROBE" --out "$WORK/pernode" --init
[ "$RC" -eq 0 ] || { cat "$WORK/pernode.err" >&2; fail "torchrun per node exited $RC"; }

$PY "$TESTS_DIR/torchrun_contract.py" "$WORK/ref" "$WORK/exchange" \
	"$WORK/slurmenv" "$WORK/pernode:agent" >"$WORK/contract.txt" || {
	cat "$WORK/contract.txt" >&2
	fail "a launch form differs from torchrun's worker contract"
}
cat "$WORK/contract.txt"
# The set is torchrun's, not empty by accident.
assert_contains "$WORK/contract.txt" "TORCHELASTIC_RUN_ID"
assert_contains "$WORK/contract.txt" "ROLE_WORLD_SIZE"

# @record: rank 1 fails; its error is in its file in the step directory,
# where rank 0 (same node) reads it while the step runs, and the shim
# reports it when the program has ended.
run_srun record --mpi="$XMPI" --dist-mode=ddp -N1 --ntasks-per-node=2 $PY "$PROBE" --out "$WORK/record" --fail-rank 1
[ "$RC" -ne 0 ] || fail "a failing rank left srun's status 0"
assert_contains "$WORK/record.out" "RECORDED rank=1 error=RuntimeError: probe failure on rank 1"
# The shim's report names the failing rank and its error once, as
# torchrun's summary does; the rank that succeeded reports nothing.
assert_count "$WORK/record.err" \
	'^dist-shim: error: tcn[1-3] rank 1: failed: RuntimeError: probe failure on rank 1 (recorded in /' 1
assert_count "$WORK/record.err" '^dist-shim: ' 1
