#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What the user exported wins over what the shim would set, and the derived
# variables follow the user's value.
source "$(dirname "$0")/lib.sh"

MASTER_PORT=23456 NCCL_SOCKET_IFNAME=mine run_srun env --mpi=$XMPI --dist-mode=ddp -N2 -n2 env
[ "$RC" -eq 0 ] || { cat "$WORK/env.err" >&2; fail "srun exited $RC"; }
assert_count "$WORK/env.out" '^MASTER_PORT=23456$' 2
assert_count "$WORK/env.out" '^PET_MASTER_PORT=23456$' 2
assert_count "$WORK/env.out" '^NCCL_SOCKET_IFNAME=mine$' 2
# The rest still comes from the shim.
assert_count "$WORK/env.out" '^RANK=[01]$' 2
assert_count "$WORK/env.out" '^GLOO_SOCKET_IFNAME=' 2
