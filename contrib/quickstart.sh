#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# From a fresh Debian 12 machine (as root): installs what is needed, builds,
# brings up a local 3-node Slurm cluster with the plugin, and runs a real
# `sbatch --dist-mode=ddp` PyTorch training job across its nodes.
# The cluster stays up afterwards; `contrib/slurm/testcluster.sh down` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build=${BUILD_DIR:-build}
case $build in /*) ;; *) build=$src/$build ;; esac

bash contrib/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j"$(nproc)"
TC_PLUGIN=$build/spank/spank_dist.so TC_SHIM=$build/shim/dist-shim \
	contrib/slurm/testcluster.sh up
eval "$(contrib/slurm/testcluster.sh env)"

# Job files live where every node sees them (each node has a private /tmp).
work=$TC_DIR/quickstart
mkdir -p "$work"
cp examples/train_ddp.py examples/train_ddp.sbatch "$work/"
cd "$work"
job=$(sbatch --parsable -o "$work/train.out" train_ddp.sbatch)
echo "quickstart: submitted job $job: sbatch --dist-mode=ddp -N 3 --ntasks-per-node=2"
deadline=$((SECONDS + 300))
while squeue -h -j "$job" | grep -q .; do
	[ $SECONDS -lt $deadline ] || { scancel "$job"; echo "quickstart: job did not finish in 300 s" >&2; exit 1; }
	sleep 2
done
cat "$work/train.out"
state=$(scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
echo "quickstart: job $job $state"
[ "$state" = COMPLETED ]
