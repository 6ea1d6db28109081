# SPDX-License-Identifier: GPL-2.0-or-later
"""A user on rank 0's node without the step's key (issue 24): waits for a
new listening port in LO-HI (rank 0's relay), opens COUNT connections to it
from ADDR and keeps them open, saying nothing, for HOLD seconds; writes
the port to FLAG once all are open."""
import os
import socket
import sys
import time

addr, lo, hi, count, flag, hold = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                   int(sys.argv[4]), sys.argv[5], float(sys.argv[6]))


def listening():
    ports = set()
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            port = int(fields[1].split(":")[1], 16)
            if fields[3] == "0A" and lo <= port <= hi:
                ports.add(port)
    return ports


before = listening()
deadline = time.time() + 60
port = None
while port is None and time.time() < deadline:
    new = listening() - before
    port = min(new) if new else None
    if port is None:
        time.sleep(0.005)
if port is None:
    sys.exit("no new listening port in %d-%d" % (lo, hi))
socks = [socket.create_connection((addr, port), timeout=5) for _ in range(count)]
with open(flag + ".tmp", "w") as f:
    f.write("%d\n" % port)
os.rename(flag + ".tmp", flag)
print("HOLDER port=%d connections=%d" % (port, len(socks)), flush=True)
time.sleep(hold)
