# SPDX-License-Identifier: GPL-2.0-or-later
"""An Azure ML-style script: env:// initialisation and the node index from
NODE_RANK. Prints: AZ-OK rank=R node_rank=N master_node=ADDR:PORT"""
import datetime
import os

import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
node_rank = int(os.environ["NODE_RANK"])
ranks_per_node = int(os.environ["LOCAL_WORLD_SIZE"])
assert node_rank == dist.get_rank() // ranks_per_node, (node_rank, dist.get_rank())
total = torch.tensor([1.0])
dist.all_reduce(total)
assert total.item() == dist.get_world_size()
line = (f"AZ-OK rank={dist.get_rank()} node_rank={node_rank} "
        f"master_node={os.environ['AZ_BATCH_MASTER_NODE']}\n")
os.write(1, line.encode())
dist.destroy_process_group()
