# SPDX-License-Identifier: GPL-2.0-or-later
"""What TensorFlow's gRPC servers do with TF_CONFIG, without TensorFlow:
every task of the cluster spec binds the address:port given for it and
accepts a connection from every other task, and every task (the evaluator
too) connects to every address in the spec. Bounded: 60 s.
Prints: TF-OK type=T index=I accepted=A connected=C"""
import json
import os
import socket
import sys
import threading
import time

config = json.loads(os.environ["TF_CONFIG"])
assert config["environment"] == "cloud", config
me = config["task"]
members = [(role, i, addr) for role, addrs in config["cluster"].items()
           for i, addr in enumerate(addrs)]
mine = config["cluster"].get(me["type"], [None] * (me["index"] + 1))[me["index"]]
others = [addr for role, i, addr in members if (role, i) != (me["type"], me["index"])]
deadline = time.time() + 60
accepted = []


def serve(sock, expected):
    sock.settimeout(1)
    while len(accepted) < expected and time.time() < deadline:
        try:
            conn, _ = sock.accept()
        except socket.timeout:
            continue
        accepted.append(conn.recv(64).decode())
        conn.close()


server = None
if mine is not None:  # the evaluator is not part of the cluster spec
    host, port = mine.rsplit(":", 1)
    server = socket.socket()
    # As gRPC's servers do: a port whose last connections are still in
    # TIME_WAIT can be bound again (and the shim's port checks allow it).
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((host, int(port)))
    server.listen(64)
    # Every other task connects, the evaluator too though it is not in the spec.
    thread = threading.Thread(target=serve, args=(server, int(os.environ["SLURM_NTASKS"]) - 1))
    thread.start()

connected = 0
for addr in others:
    host, port = addr.rsplit(":", 1)
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=2) as conn:
                conn.sendall(f"{me['type']}:{me['index']}".encode())
            connected += 1
            break
        except OSError:
            if time.time() > deadline:
                sys.exit(f"{me['type']}:{me['index']} could not reach {addr}")
            time.sleep(0.1)

if server is not None:
    thread.join()
    if len(accepted) != int(os.environ["SLURM_NTASKS"]) - 1:
        sys.exit(f"{me['type']}:{me['index']} accepted only {len(accepted)} connections")
os.write(1, f"TF-OK type={me['type']} index={me['index']} accepted={len(accepted)} "
            f"connected={connected}\n".encode())
