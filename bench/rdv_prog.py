# SPDX-License-Identifier: GPL-2.0-or-later
"""Benchmark task for bench/rendezvous.sh: time to a completed PyTorch gloo
init_process_group (env://) plus one barrier.

Prints one line per rank:
  RDV rank=R world=W proc_to_barrier_ms=P srun_to_main_ms=A srun_to_import_ms=B
      srun_to_init_ms=C srun_to_barrier_ms=D
P is measured from this process's creation (/proc/self/stat; under srun with
the shim that is the task's start, shim included, since the shim execs; under
torchrun it is the worker's start, after torchrun's own start-up and
rendezvous). A..D are measured from BENCH_T0, the wall-clock time (seconds
since the epoch) the harness took just before starting srun: every "node" of
the local test cluster shares the host's clock, so these compare directly.
"""
import os
import sys
import time

T_MAIN = time.time()


def process_age_s():
    """Seconds since this process was created (10 ms resolution)."""
    with open("/proc/self/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    start_ticks = int(fields[19])  # field 22 of stat(5); fields[0] is field 3
    return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")


AGE_AT_MAIN = process_age_s()

import datetime  # noqa: E402

import torch  # noqa: E402,F401
import torch.distributed as dist  # noqa: E402

T_IMPORT = time.time()
dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
T_INIT = time.time()
dist.barrier()
T_BARRIER = time.time()

T0 = float(os.environ.get("BENCH_T0", "nan"))


def ms(t):
    return (t - T0) * 1000


# One write for the whole line: torchrun runs its workers unbuffered
# (PYTHONUNBUFFERED=1) on one shared pipe, and print() writes the text and the
# newline apart, so two workers' lines could run into one.
sys.stdout.write(
    f"RDV rank={dist.get_rank()} world={dist.get_world_size()} "
    f"proc_to_barrier_ms={(AGE_AT_MAIN + T_BARRIER - T_MAIN) * 1000:.1f} "
    f"srun_to_main_ms={ms(T_MAIN):.1f} srun_to_import_ms={ms(T_IMPORT):.1f} "
    f"srun_to_init_ms={ms(T_INIT):.1f} srun_to_barrier_ms={ms(T_BARRIER):.1f}\n"
)
sys.stdout.flush()
dist.destroy_process_group()
