# SPDX-License-Identifier: GPL-2.0-or-later
"""Where each rank ran, after an allreduce across every rank (checked):
prints RANK-AT R/S HOST only when the sum is right."""
import socket

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
total = comm.allreduce(rank + 1)
assert total == size * (size + 1) // 2, total
print(f"RANK-AT {rank}/{size} {socket.gethostname()}", flush=True)
