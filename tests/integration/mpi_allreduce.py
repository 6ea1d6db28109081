# SPDX-License-Identifier: GPL-2.0-or-later
"""A real mpi4py/Open MPI client: allreduce across every rank.
Prints: MPI-OK rank=R size=S host=H"""
import os
import socket

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
total = comm.allreduce(rank + 1)
assert total == size * (size + 1) // 2, total
os.write(1, f"MPI-OK rank={rank} size={size} host={socket.gethostname()}\n".encode())
