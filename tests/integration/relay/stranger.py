# SPDX-License-Identifier: GPL-2.0-or-later
"""A program that does not have the step's relay key, on any node of the
cluster: tries to take a waiting task's place at rank 0's launcher relay
("forge": a hello with a made-up MAC) or only holds a connection open
("hold", for the busy-loop check). Prints what it got back."""
import os
import socket
import sys
import time

mode, addr, port, flag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
s = socket.create_connection((addr, port), timeout=10)
if mode == "hold":
    open(flag, "w").close()
    time.sleep(6)
    print("STRANGER held", flush=True)
    sys.exit(0)
s.settimeout(5)
greeting = b""
try:
    while len(greeting) < 20:
        b = s.recv(20 - len(greeting))
        if not b:
            break
        greeting += b
    s.sendall((1).to_bytes(4, "big") + os.urandom(16) + os.urandom(32))
    b = s.recv(64)
    answer = "eof" if not b else "bytes:%d" % len(b)
except socket.timeout:
    answer = "none"
except OSError as e:
    answer = "eof" if isinstance(e, ConnectionResetError) else "error:%s" % e
print("STRANGER greeted=%d answer=%s" % (len(greeting), answer), flush=True)
