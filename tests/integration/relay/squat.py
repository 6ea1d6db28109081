# SPDX-License-Identifier: GPL-2.0-or-later
"""A user on rank 0's node who binds the site's whole port range first and
answers every connection as the old relay's rank 0 would with status 0."""
import socket
import sys
import threading
import time

lo, hi, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
socks = []
for port in range(lo, hi + 1):
    s = socket.socket()
    # As a real squatter would: a port an earlier job left in TIME_WAIT is
    # taken too (without it the relay's port may stay free, and the task
    # wait for a rank 0 that never comes instead of meeting the forgery).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("0.0.0.0", port))
        s.listen(8)
        socks.append(s)
    except OSError:
        s.close()


def serve(s):
    while True:
        c, _ = s.accept()
        c.sendall(b"\0" * 64)
        threading.Timer(3, c.close).start()


for s in socks:
    threading.Thread(target=serve, args=(s,), daemon=True).start()
with open(ready, "w") as f:
    f.write("%d\n" % len(socks))
time.sleep(float(sys.argv[4]))
