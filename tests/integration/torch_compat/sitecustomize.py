# SPDX-License-Identifier: GPL-2.0-or-later
"""Lets torchrun run on a torch built without libuv (Debian's torch 2.x).

From torch 2.4 on, TCPStore asks for libuv by default. torch.distributed's
env:// reads USE_LIBUV=0, but torchrun's rendezvous handlers (static and c10d)
construct TCPStore without passing it (and from 2.5 so does env:// when it
reuses torchrun's store), so on such a build torchrun fails with
"use_libuv was requested but PyTorch was build without libuv support". This
is Debian's build, not slurm-dist: the tests put this directory on PYTHONPATH
so that torchrun itself, unchanged, is what they exercise. On a torch with
libuv, or one older than 2.4, it changes nothing. docs/ddp.md gives users the
same workaround.
"""
import os


def _patch():
    if os.environ.get("USE_LIBUV", "1") != "0":
        return
    try:
        import torch.distributed as dist
    except Exception:
        return
    store = getattr(dist, "TCPStore", None)
    if store is None:
        return
    try:
        dist.TCPStore("127.0.0.1", 0, 1, True, use_libuv=True, wait_for_workers=False)
        return  # libuv is there
    except TypeError:
        return  # torch < 2.4: no libuv option at all
    except RuntimeError as e:
        if "libuv" not in str(e):
            return

    class TCPStoreWithoutLibuv(store):
        def __init__(self, *args, **kwargs):
            kwargs["use_libuv"] = False
            super().__init__(*args, **kwargs)

    import sys

    import torch.distributed.elastic.rendezvous.c10d_rendezvous_backend  # noqa: F401
    import torch.distributed.elastic.rendezvous.static_tcp_rendezvous  # noqa: F401
    import torch.distributed.rendezvous  # noqa: F401

    # Every module that took the name (torchrun's rendezvous handlers, and
    # env:// reusing the agent's store from torch 2.5 on).
    for name, module in list(sys.modules.items()):
        if name.startswith("torch.distributed") and getattr(module, "TCPStore", None) is store:
            module.TCPStore = TCPStoreWithoutLibuv


_patch()
