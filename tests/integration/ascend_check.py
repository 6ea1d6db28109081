# SPDX-License-Identifier: GPL-2.0-or-later
"""Checks, in each task, the rank table and variables of --dist-mode=ascend
against this node's hccn.conf (DIST_HCCN_CONF) and the task's place.
Prints: ASC-OK rank=R device=D ip=IP"""
import json
import os
import socket

env = os.environ
with open(env["RANK_TABLE_FILE"]) as f:
    table = json.load(f)
with open(env["DIST_HCCN_CONF"]) as f:
    hccn = dict(line.strip().split("=", 1) for line in f if line.startswith("address_"))

rank, size = int(env["RANK_ID"]), int(env["RANK_SIZE"])
assert rank == int(env["RANK"]) and size == int(env["WORLD_SIZE"]), "RANK/WORLD_SIZE"
assert table["version"] == "1.0" and table["status"] == "completed", table
servers = table["server_list"]
assert table["server_count"] == str(len(servers)), table["server_count"]
devices = [d for s in servers for d in s["device"]]
assert sorted(int(d["rank_id"]) for d in devices) == list(range(size)), "rank ids"
assert all(isinstance(v, str) for s in servers for d in s["device"] for v in d.values())
mine = [(s, d) for s in servers for d in s["device"] if d["rank_id"] == str(rank)]
assert len(mine) == 1, mine
server, device = mine[0]
assert device["device_id"] == env["DEVICE_ID"], (device, env["DEVICE_ID"])
assert device["device_ip"] == hccn["address_" + env["DEVICE_ID"]], (device, hccn)
if env.get("ASCEND_CHECK_ISOLATED"):  # --dist-npu-isolate: only its own NPU, logical 0
    assert env["ASCEND_RT_VISIBLE_DEVICES"] == env["DEVICE_ID"], env["ASCEND_RT_VISIBLE_DEVICES"]
    assert env["ASCEND_DEVICE_ID"] == "0", env["ASCEND_DEVICE_ID"]
else:
    assert int(env["ASCEND_DEVICE_ID"]) == int(env["LOCAL_RANK"])
assert 1024 <= int(env["HCCL_IF_BASE_PORT"]) <= 65535
os.write(1, f"ASC-OK rank={rank} server={server['server_id']} device={device['device_id']} "
            f"ip={device['device_ip']} host={socket.gethostname()}\n".encode())
