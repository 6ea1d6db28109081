#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks that a step's binding agrees with what Slurm allowed (site_cgroup.sh).

    bind_agree.py OUT [ERR] [--within BARE_OUT] [--same BARE_OUT]
                  [--physical "LR=GPU;..."] [--cpus "LR=LIST;..."]

OUT holds one line per task from bind_probe.sh:
    PROBE NODE LR CVD OPEN CPUS OMP
(CVD: CUDA_VISIBLE_DEVICES or "-"; OPEN: the node's fake GPUs the task may
open, by minor number, "-" for none; CPUS: its affinity list). ERR, when
given, holds --dist-explain's lines:
    dist-shim: NODE rank R: LR GPU CPUS NIC OMP
For each task with an explain line it checks:
  - the shim's GPU (an entry of CVD) is one the task can open: under
    ConstrainDevices Slurm numbers a task's GPUs 0..n-1 in the order of the
    devices it may open, so entry N is the Nth openable device;
  - the node's tasks got distinct devices while there are enough;
  - the explain line's CPUs are the task's affinity.
--within: each task's CPUs are among those the same task (node, local rank)
had in the bare step (the shim never widens Slurm's binding); --same: they
are exactly those (the shim left them alone).
--physical: the device each local rank ended on. --cpus: its CPU list.
"""
import argparse
import collections
import re
import sys


def cpu_set(text):
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def read_probes(path):
    probes = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if len(fields) == 7 and fields[0] == "PROBE":
                _, node, lr, cvd, opened, cpus, omp = fields
                probes[(node, int(lr))] = {
                    "cvd": [] if cvd == "-" else cvd.split(","),
                    "open": [] if opened == "-" else [int(g) for g in opened.split(",")],
                    "cpus": cpu_set(cpus),
                    "omp": omp,
                }
    return probes


def read_explains(path):
    pattern = re.compile(r"^dist-shim: (\S+) rank (\d+): (\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)$")
    explains = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = pattern.match(line.rstrip("\n"))
            if m:
                node, _, lr, gpu, cpus, _, omp = m.groups()
                explains[(node, int(lr))] = {"gpu": gpu, "cpus": cpu_set(cpus), "omp": omp}
    return explains


def parse_map(text):
    return {int(k): v for k, v in (item.split("=", 1) for item in text.split(";"))}


def check_against_bare(probes, bare_path, same, errors):
    bare = read_probes(bare_path)
    for key, p in probes.items():
        if key not in bare:
            errors.append(f"{key}: not in the bare step")
        elif same and p["cpus"] != bare[key]["cpus"]:
            errors.append(f"{key}: CPUs {sorted(p['cpus'])}, Slurm's were {sorted(bare[key]['cpus'])}")
        elif not p["cpus"] <= bare[key]["cpus"]:
            errors.append(f"{key}: CPUs {sorted(p['cpus'])} outside Slurm's {sorted(bare[key]['cpus'])}")


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("err", nargs="?")
    parser.add_argument("--within")
    parser.add_argument("--same")
    parser.add_argument("--physical")
    parser.add_argument("--cpus")
    opts = parser.parse_args(argv)
    probes = read_probes(opts.out)
    explains = read_explains(opts.err) if opts.err else {}
    errors = []
    if not probes:
        errors.append(f"no PROBE line in {opts.out}")
    physical = collections.defaultdict(dict)
    for key, p in sorted(probes.items()):
        e = explains.get(key)
        if opts.err and not e:
            errors.append(f"{key}: no --dist-explain line")
            continue
        if e and e["gpu"] != "-":
            if e["gpu"] not in p["cvd"]:
                errors.append(f"{key}: GPU {e['gpu']} is not in CUDA_VISIBLE_DEVICES {p['cvd']}")
            else:
                n = int(e["gpu"])
                if n >= len(p["open"]):
                    errors.append(f"{key}: GPU {n} but the task may open only {p['open']}")
                else:
                    physical[key[0]][key[1]] = p["open"][n]
        if e and e["cpus"] != p["cpus"]:
            errors.append(f"{key}: explained CPUs {sorted(e['cpus'])}, bound to {sorted(p['cpus'])}")
        if e and e["omp"] != p["omp"]:
            errors.append(f"{key}: explained {e['omp']} threads, OMP_NUM_THREADS={p['omp']}")
    for node, ranks in physical.items():
        opened = {g for (n, _), p in probes.items() if n == node for g in p["open"]}
        if len(set(ranks.values())) < min(len(ranks), len(opened)):
            errors.append(f"{node}: tasks share a GPU while others are free: {ranks}")
    for bare_path, same in ((opts.within, False), (opts.same, True)):
        if bare_path:
            check_against_bare(probes, bare_path, same, errors)
    if opts.physical:
        for lr, gpu in parse_map(opts.physical).items():
            for node, ranks in physical.items():
                if ranks.get(lr) != int(gpu):
                    errors.append(f"{node} local rank {lr}: on GPU {ranks.get(lr)}, expected {gpu}")
        if not physical:
            errors.append("no task has a GPU")
    if opts.cpus:
        for lr, cpus in parse_map(opts.cpus).items():
            for key, p in probes.items():
                if key[1] == lr and p["cpus"] != cpu_set(cpus):
                    errors.append(f"{key}: CPUs {sorted(p['cpus'])}, expected {cpus}")
    for e in errors:
        print(f"bind_agree: {e}", file=sys.stderr)
    if errors:
        return 1
    print(f"BIND-AGREE-OK {len(probes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
