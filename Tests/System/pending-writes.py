#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sets keys through prefsd without asking for synchronize, so that the changes are acknowledged but, with a long
FlushDelay, not yet on disk: scripts/test-system.sh then checks that stopping prefsd (or logging out) writes them.
`defaults write` cannot serve here, because it synchronizes before it exits.

usage: pending-writes.py DOMAIN KEY=VALUE...    (the socket: $PREFSD_SOCKET, else $XDG_RUNTIME_DIR/prefsd/socket)
"""
import os
import plistlib
import socket
import struct
import sys


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("prefsd closed the connection")
        data += chunk
    return data


def call(sock, request):
    payload = plistlib.dumps(request, fmt=plistlib.FMT_BINARY)
    sock.sendall(struct.pack(">I", len(payload)) + payload)
    reply = plistlib.loads(read_exactly(sock, struct.unpack(">I", read_exactly(sock, 4))[0]))
    if "error" in reply:
        raise RuntimeError(f"{request['op']}: {reply['error']['code']}: {reply['error']['message']}")
    return reply


def main():
    if len(sys.argv) < 3 or any("=" not in pair for pair in sys.argv[2:]):
        sys.exit(__doc__.strip().splitlines()[-1])
    domain = sys.argv[1]
    path = os.environ.get("PREFSD_SOCKET") or os.path.join(os.environ["XDG_RUNTIME_DIR"], "prefsd", "socket")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(path)
        call(sock, {"id": 1, "op": "hello", "version": 1, "client": "pending-writes.py"})
        for number, pair in enumerate(sys.argv[2:], start=2):
            key, value = pair.split("=", 1)
            call(sock, {"id": number, "op": "set", "domain": domain, "key": key, "value": value})
    print(f"set {len(sys.argv) - 2} keys of {domain} through prefsd, without synchronize")


if __name__ == "__main__":
    main()
