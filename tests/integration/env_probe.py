# SPDX-License-Identifier: GPL-2.0-or-later
"""What a training program sees: writes one file per process into DIR
(--out DIR), ENV-<host>-<pid>.json: {"env": {...}, "host": ..., "elastic":
..., ...} with its whole environment after `import torch` (so that whatever torch
itself sets is on both sides of a comparison), and whether
torch.distributed.is_torchelastic_launched() says torchrun started it.
Options:
  --parent        write PARENT-<host>-<pid>.json instead: the environment
                  torchrun is started from, to tell torchrun's own variables apart
  --init          also join the process group over env:// (gloo) and
                  all_reduce: the master is reachable and the ranks agree
  --mark          list the files already in the step directory (the error
                  file's) as "step_files", then leave mark.attemptN.rankR
                  there: a later attempt must not find it
  --fail-rank R   rank R raises inside a function decorated with torch's
                  @record (which writes TORCHELASTIC_ERROR_FILE); the other
                  ranks of its node wait (bounded) for that file, print
                  RECORDED rank=R error=<message from the file>, and wait
                  (bounded) for the failing rank's dist-shim watcher to end
"""
import argparse
import datetime
import json
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record


def write(out_dir, kind, data):
    """One file per process, whole or not at all: processes that share a
    stdout (torchrun's workers) would interleave long lines."""
    name = f"{kind}-{socket.gethostname()}-{os.getpid()}.json"
    tmp = os.path.join(out_dir, "." + name)
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.rename(tmp, os.path.join(out_dir, name))


def error_dir_private(path):
    """The error file's directory is this user's and no one else's."""
    try:
        st = os.stat(os.path.dirname(path))
    except OSError:
        return False
    return st.st_uid == os.getuid() and (st.st_mode & 0o077) == 0


def join_and_reduce():
    dist.init_process_group(
        "gloo", init_method="env://", timeout=datetime.timedelta(seconds=60)
    )
    t = torch.ones(1)
    dist.all_reduce(t)
    dist.destroy_process_group()
    return int(t.item())


@record
def fail(rank):
    raise RuntimeError(f"probe failure on rank {rank}")


def proc_field(pid, name):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split()[1]
    except OSError:
        pass
    return None


def wait_for_other_watchers():
    """Until the failing rank's dist-shim watcher (report.c) has ended, so
    that this rank does not end the step before it reported. This process
    is the node's only other task, and its own watcher is its child."""
    deadline = time.time() + 60
    while time.time() < deadline:
        others = [
            p
            for p in os.listdir("/proc")
            if p.isdigit()
            and proc_field(p, "Name") == "dist-shim"
            and proc_field(p, "PPid") != str(os.getpid())
        ]
        if not others:
            return
        time.sleep(0.2)


def wait_for_record(rank):
    """Reads the failing rank's error file, which @record wrote next to ours."""
    path = os.path.join(
        os.path.dirname(os.environ["TORCHELASTIC_ERROR_FILE"]),
        os.path.basename(os.environ["TORCHELASTIC_ERROR_FILE"]).replace(
            f".{os.environ['RANK']}.", f".{rank}."
        ),
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with open(path) as f:
                data = json.load(f)
            message = data["message"]
            if isinstance(message, dict):
                message = message.get("message", "")
            print(f"RECORDED rank={rank} error={message.splitlines()[0]}", flush=True)
            wait_for_other_watchers()
            return
        except (OSError, ValueError, KeyError):
            time.sleep(0.2)
    print(f"RECORDED rank={rank} error=<none in 60 s at {path}>", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--parent", action="store_true")
    parser.add_argument("--init", action="store_true")
    parser.add_argument("--mark", action="store_true")
    parser.add_argument("--fail-rank", type=int)
    args = parser.parse_args()
    env = dict(os.environ)
    if args.parent:
        write(args.out, "PARENT", {"env": env})
        return
    if args.fail_rank is not None:
        rank = int(env["RANK"])
        if rank == args.fail_rank:
            fail(rank)
        if int(env["LOCAL_RANK"]) == 0:
            wait_for_record(args.fail_rank)
        return
    out = {
        "env": env,
        "host": socket.gethostname(),
        "elastic": dist.is_torchelastic_launched(),
        "error_dir_private": error_dir_private(env.get("TORCHELASTIC_ERROR_FILE", "")),
    }
    if args.mark:
        step_dir = os.path.dirname(env["TORCHELASTIC_ERROR_FILE"])
        out["step_dir"] = step_dir
        out["step_files"] = sorted(os.listdir(step_dir))
        mark = f"mark.attempt{env['TORCHELASTIC_RESTART_COUNT']}.rank{env['RANK']}"
        with open(os.path.join(step_dir, mark), "w") as f:
            f.write("left by an earlier attempt\n")
    if args.init:
        out["allreduce"] = join_and_reduce()
    write(args.out, "ENV", out)


if __name__ == "__main__":
    sys.exit(main())
