# SPDX-License-Identifier: GPL-2.0-or-later
"""A real Hugging Face Accelerate client, as a user writes it: Accelerator()
on CPU with the gloo backend, one training step across every process, replicas checked
equal. Prints per process:
  ACCEL-OK rank=R world=W local_rank=L type=T host=H elastic=E
with Accelerate's own view (process_index, num_processes,
local_process_index, distributed_type) next to what the environment said.
"""
import os
import socket

import torch
import torch.distributed as dist
from accelerate import Accelerator
from accelerate.utils import InitProcessGroupKwargs


def main():
    # On CPU Accelerate takes torch's MPI backend whenever torch has one
    # (Debian forky's does), which needs MPI's own launch; gloo is what the
    # ddp contract serves (on GPUs it takes nccl from LOCAL_RANK).
    acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
    env = os.environ
    assert acc.process_index == int(env["RANK"]), (acc.process_index, env["RANK"])
    assert acc.num_processes == int(env["WORLD_SIZE"]), acc.num_processes
    assert acc.local_process_index == int(env["LOCAL_RANK"]), acc.local_process_index
    torch.manual_seed(acc.process_index)  # different data, same initial model below
    model = torch.nn.Linear(4, 1)
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(0.5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = acc.prepare(model, opt)
    loss = model(torch.randn(8, 4)).pow(2).mean()
    acc.backward(loss)
    opt.step()
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    gathered = acc.gather(flat.unsqueeze(0))
    assert all(torch.equal(gathered[0], g) for g in gathered), "replicas differ"
    print(
        f"ACCEL-OK rank={acc.process_index} world={acc.num_processes} "
        f"local_rank={acc.local_process_index} type={acc.distributed_type.name} "
        f"host={socket.gethostname()} elastic={dist.is_torchelastic_launched()}",
        flush=True,
    )
    acc.end_training()


if __name__ == "__main__":
    main()
