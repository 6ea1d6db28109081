# SPDX-License-Identifier: GPL-2.0-or-later
"""A training start file as ModelArts runs it: the platform appends
--init_method tcp://IP:PORT, and on several nodes --rank and --world_size of
the nodes. Initialises gloo from those arguments alone and all_reduces.
Prints: MA-OK rank=R world=W init=URL"""
import argparse
import datetime

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--init_method", required=True)
parser.add_argument("--rank", type=int, default=0)
parser.add_argument("--world_size", type=int, default=1)
args = parser.parse_args()

dist.init_process_group("gloo", init_method=args.init_method, rank=args.rank,
                        world_size=args.world_size, timeout=datetime.timedelta(seconds=60))
total = torch.tensor([1.0])
dist.all_reduce(total)
assert total.item() == args.world_size, total.item()
print(f"MA-OK rank={args.rank} world={args.world_size} init={args.init_method}", flush=True)
dist.destroy_process_group()
