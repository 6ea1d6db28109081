# SPDX-License-Identifier: GPL-2.0-or-later
"""Compares what a program gets from the plugin with what torchrun gives it.

  torchrun_contract.py REFERENCE FORM_DIR...

REFERENCE is env_probe.py's output directory under a real torchrun (a
PARENT file from the shell that started torchrun, then one ENV file per
worker); each FORM_DIR holds the ENV files of one launch form of the
plugin (every line with "allreduce", from --init), ":agent" after it when
torchrun ran under the plugin (its workers may use the agents' store). torchrun's worker set is
every variable a worker has that its parent had not, or had with another
value. Each form must have every one of them, with the same meaning: ranks
and sizes by what they count, the master by being one for all and reachable
(the all_reduce over env:// worked), the error file by being each rank's own
in a private directory, anything not known here by the same value. Exits 1
naming each difference; prints the worker set it checked.
"""
import json
import os
import sys
from collections import defaultdict

# torchrun sets OMP_NUM_THREADS=1 in its own environment when it starts
# several workers and the user did not; the plugin's binding sets the CPUs
# bound to the task instead (docs/binding.md), and leaves it unset without
# binding: both are a thread count for the worker, not a launcher contract.
NOT_COMPARED = {
    "OMP_NUM_THREADS": "a thread count; the plugin's binding sets its own",
    # bash's own bookkeeping, which differs between the commands of one
    # `bash -c` line (the last one is exec'd)
    "SHLVL": "the shell's nesting level",
    "_": "the shell's last command",
}


def records(path, tag):
    out = []
    for name in sorted(os.listdir(path)):
        if name.startswith(tag + "-") and name.endswith(".json"):
            with open(os.path.join(path, name)) as f:
                out.append(json.load(f))
    return out


def by_host(recs):
    hosts = defaultdict(list)
    for r in recs:
        hosts[r["host"]].append(r)
    return hosts


def ints(recs, name):
    return [int(r["env"][name]) for r in recs]


def check_ranks(recs, name, problems):
    world = len(recs)
    hosts = by_host(recs)
    e = lambda r: r["env"]
    if name in ("RANK", "ROLE_RANK"):
        if sorted(ints(recs, name)) != list(range(world)):
            problems.append(f"{name} is not 0..{world - 1} once each")
        if name == "ROLE_RANK" and any(e(r)["ROLE_RANK"] != e(r)["RANK"] for r in recs):
            problems.append("ROLE_RANK differs from RANK (torchrun: one role)")
    elif name in ("WORLD_SIZE", "ROLE_WORLD_SIZE"):
        if set(ints(recs, name)) != {world}:
            problems.append(f"{name} is not the {world} processes")
    elif name == "LOCAL_RANK":
        for h, rs in hosts.items():
            if sorted(ints(rs, name)) != list(range(len(rs))):
                problems.append(f"LOCAL_RANK on {h} is not 0..{len(rs) - 1}")
    elif name == "LOCAL_WORLD_SIZE":
        for h, rs in hosts.items():
            if set(ints(rs, name)) != {len(rs)}:
                problems.append(f"LOCAL_WORLD_SIZE on {h} is not its {len(rs)} processes")
    elif name == "GROUP_RANK":
        per_host = {h: set(ints(rs, name)) for h, rs in hosts.items()}
        if any(len(v) != 1 for v in per_host.values()) or sorted(
            v.pop() for v in per_host.values()
        ) != list(range(len(hosts))):
            problems.append("GROUP_RANK does not number the nodes 0..n-1, one per node")
    elif name == "GROUP_WORLD_SIZE":
        if set(ints(recs, name)) != {len(hosts)}:
            problems.append(f"GROUP_WORLD_SIZE is not the {len(hosts)} nodes")
    else:
        return False
    return True


def check_other(ref, recs, name, agent, problems):
    e = lambda r: r["env"]
    values = {e(r).get(name) for r in recs}
    ref_values = {e(r).get(name) for r in ref}
    if name in ("MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID"):
        if len(values) != 1 or not values.pop():
            problems.append(f"{name} is not one non-empty value for all ranks")
    elif name == "TORCHELASTIC_MAX_RESTARTS":
        if any(int(e(r)[name]) < int(e(r)["TORCHELASTIC_RESTART_COUNT"]) for r in recs):
            problems.append("TORCHELASTIC_MAX_RESTARTS below the restart count")
    elif name == "TORCHELASTIC_USE_AGENT_STORE":
        # True only where an agent hosts the store: torchrun's own workers.
        if not agent and values != {"False"}:
            problems.append("TORCHELASTIC_USE_AGENT_STORE is not False without an agent's store")
    elif name == "TORCHELASTIC_ERROR_FILE":
        files = [e(r)[name] for r in recs]
        if len(set(files)) != len(files) or not all(f.startswith("/") for f in files):
            problems.append("TORCHELASTIC_ERROR_FILE is not each rank's own absolute path")
        # Under torchrun run by the plugin the files are torchrun's own.
        if not agent and not all(r.get("error_dir_private") for r in recs):
            problems.append("TORCHELASTIC_ERROR_FILE's directory is not private (0700, yours)")
    elif values != ref_values:
        problems.append(f"{name} is {sorted(map(str, values))}, torchrun gives {sorted(map(str, ref_values))}")


def main():
    parent = records(sys.argv[1], "PARENT")
    ref = records(sys.argv[1], "ENV")
    if len(parent) != 1 or len(ref) < 2:
        print(f"bad reference {sys.argv[1]}: {len(parent)} parents, {len(ref)} workers")
        return 1
    penv = parent[0]["env"]
    worker_set = sorted(
        {k for r in ref for k, v in r["env"].items() if penv.get(k) != v} - set(NOT_COMPARED)
    )
    print("torchrun's worker set: " + " ".join(worker_set))
    failed = 0
    for spec in sys.argv[2:]:
        path, _, kind = spec.partition(":")
        agent = kind == "agent"  # torchrun run by the plugin: its agents' store
        recs = records(path, "ENV")
        problems = []
        if len(recs) < 2:
            problems.append(f"only {len(recs)} ENV files")
        missing = [k for k in worker_set if any(k not in r["env"] for r in recs)]
        if missing:
            problems.append("missing: " + " ".join(missing))
        for k in worker_set:
            if k in missing or not recs:
                continue
            if not check_ranks(recs, k, problems):
                check_other(ref, recs, k, agent, problems)
        if any(not r["elastic"] for r in recs):
            problems.append("is_torchelastic_launched() is False")
        if any(r.get("allreduce") != len(recs) for r in recs):
            problems.append("the all_reduce over env:// did not sum every rank")
        for p in problems:
            print(f"{path}: {p}")
        failed += bool(problems)
        if not problems:
            print(f"{path}: same as torchrun ({len(recs)} ranks)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
