#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One line about this task for bind_agree.py (site_cgroup.sh):
#   PROBE NODE LOCAL_RANK CUDA_VISIBLE_DEVICES OPENABLE_GPUS CPUS OMP_NUM_THREADS
# DEV_DIR (argument 1) holds each node's fake GPUs (gpu0..gpu3, no driver):
# one the devices cgroup refuses fails with EPERM; one it allows fails
# otherwise (ENXIO) or opens.
dev=$1/$SLURMD_NODENAME
open=""
for g in 0 1 2 3; do
	if ! err=$( (: <"$dev/gpu$g") 2>&1) && grep -q "not permitted" <<<"$err"; then
		continue
	fi
	open="$open,$g"
done
open=${open#,}
cpus=$(sed -n 's/^Cpus_allowed_list:\t//p' /proc/self/status)
echo "PROBE $SLURMD_NODENAME $SLURM_LOCALID ${CUDA_VISIBLE_DEVICES:--} ${open:--} $cpus ${OMP_NUM_THREADS:--}"
