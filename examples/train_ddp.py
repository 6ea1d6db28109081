# SPDX-License-Identifier: GPL-2.0-or-later
"""A small PyTorch DDP training run (gloo, CPU): fits y = 3x + 1 with data
split across ranks. Only init_process_group(init_method="env://") - the
environment comes from --dist-mode=ddp."""
import os
import socket

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", init_method="env://")
rank, world = dist.get_rank(), dist.get_world_size()

torch.manual_seed(0)
model = DDP(torch.nn.Linear(1, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
g = torch.Generator().manual_seed(rank)
for step in range(200):
    x = torch.rand(32, 1, generator=g)
    loss = (model(x) - (3 * x + 1)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

w, b = model.module.weight.item(), model.module.bias.item()
print(f"rank {rank}/{world} on {socket.gethostname()} (local rank {os.environ['LOCAL_RANK']}, "
      f"master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}): "
      f"loss {loss.item():.5f}, y = {w:.3f}x + {b:.3f}", flush=True)
dist.destroy_process_group()
