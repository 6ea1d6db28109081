# SPDX-License-Identifier: GPL-2.0-or-later
"""A real PyTorch DDP client: gloo on CPU, env:// rendezvous, one all_reduce
and one DDP training step, checked across every rank.

Prints one line per rank:
  DDP-OK rank=R world=W local_rank=L host=H master=ADDR:PORT ifname=IF
Options:
  --announce FILE   rank 0 creates FILE once the process group is up
  --wait-for FILE   rank 0 then waits (bounded) for FILE before finishing,
                    so two steps are provably running at the same time
"""
import argparse
import datetime
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--announce")
    parser.add_argument("--wait-for")
    # torch.distributed.launch (TI-ONE's launch line) passes --local_rank;
    # from torch 2.0 on it spells it --local-rank.
    parser.add_argument("--local_rank", "--local-rank", type=int)
    args = parser.parse_args()

    dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank != int(os.environ["RANK"]) or world != int(os.environ["WORLD_SIZE"]):
        sys.exit(f"rank/world mismatch: {rank}/{world} vs env {os.environ['RANK']}/{os.environ['WORLD_SIZE']}")

    total = torch.tensor([float(rank + 1)])
    dist.all_reduce(total)
    if total.item() != world * (world + 1) / 2:
        sys.exit(f"all_reduce gave {total.item()}")

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    data = torch.randn(8, 4, generator=torch.Generator().manual_seed(rank))
    ddp(data).pow(2).mean().backward()
    opt.step()
    params = torch.cat([p.detach().flatten() for p in model.parameters()])
    gathered = [torch.zeros_like(params) for _ in range(world)]
    dist.all_gather(gathered, params)
    if not all(torch.equal(params, g) for g in gathered):
        sys.exit("DDP replicas diverged after one step")

    if rank == 0 and args.announce:
        open(args.announce, "w").close()
    if rank == 0 and args.wait_for:
        deadline = time.time() + 60
        while not os.path.exists(args.wait_for):
            if time.time() > deadline:
                sys.exit(f"the other step never announced itself ({args.wait_for})")
            time.sleep(0.2)
    dist.barrier()

    line = (
        f"DDP-OK rank={rank} world={world} local_rank={os.environ['LOCAL_RANK']} "
        f"host={socket.gethostname()} master={os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']} "
        f"ifname={os.environ.get('GLOO_SOCKET_IFNAME', '')}\n"
    )
    # One write: workers of one torchrun share a pipe, and a short write is atomic.
    os.write(1, line.encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
