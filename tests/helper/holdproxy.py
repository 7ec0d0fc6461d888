#!/usr/bin/env python3
"""holdproxy.py - a TCP forwarder for tests that can hold new connections.

usage: holdproxy.py TARGET_HOST TARGET_PORT PORT_FILE

Listens on 127.0.0.1 (a free port, written to PORT_FILE once listening) and
forwards every connection to TARGET_HOST:TARGET_PORT.  SIGUSR1: from now on,
accept new connections but pass nothing through (a server that takes the
connection and never answers it); the connections already open go on.
SIGUSR2: pass the held ones on (what they sent meanwhile included) and
forward new ones again.  SIGTERM ends it.  The signal handlers run on the
main thread between its statements, as the accept loop does: hold and held
need no lock.
"""
import os
import signal
import socket
import sys
import threading

hold = False
held = []


def pump(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def forward(client, target):
    try:
        up = socket.create_connection(target)
    except OSError:
        client.close()
        return
    threading.Thread(target=pump, args=(client, up), daemon=True).start()
    threading.Thread(target=pump, args=(up, client), daemon=True).start()


def main():
    global hold
    target = (sys.argv[1], int(sys.argv[2]))
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)

    def on_hold(signum, frame):
        global hold
        hold = True

    def on_release(signum, frame):
        global hold
        hold = False
        waiting = held[:]
        del held[:]
        for c in waiting:
            forward(c, target)

    signal.signal(signal.SIGUSR1, on_hold)
    signal.signal(signal.SIGUSR2, on_release)
    signal.signal(signal.SIGTERM, lambda s, f: sys.exit(0))
    with open(sys.argv[3] + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(sys.argv[3] + ".tmp", sys.argv[3])
    while True:
        client, _ = ls.accept()
        if hold:
            held.append(client)
            # A release between the test and the append passed the others on.
            if hold or client not in held:
                continue
            held.remove(client)
        forward(client, target)


if __name__ == "__main__":
    main()
