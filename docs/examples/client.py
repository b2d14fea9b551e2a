#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A minimal prefsd client (docs/PROTOCOL.md): hello, then set and get one key. Usage: client.py [domain key value]"""
import os, plistlib, socket, struct, sys

def socket_path():
    if "PREFSD_SOCKET" in os.environ: return os.environ["PREFSD_SOCKET"]
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    if os.environ.get("XDG_RUNTIME_DIR") or os.path.isdir(runtime): return f"{runtime}/prefsd/socket"
    return f"/tmp/prefsd-{os.getuid()}/socket"

def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk: raise ConnectionError("prefsd closed the connection")
        data += chunk
    return data

def call(sock, request):  # without subscriptions, the next message is this request's reply or a closing event
    payload = plistlib.dumps(request, fmt=plistlib.FMT_BINARY)
    sock.sendall(struct.pack(">I", len(payload)) + payload)
    message = plistlib.loads(read_exactly(sock, struct.unpack(">I", read_exactly(sock, 4))[0]))
    if "error" in message: raise RuntimeError(f"{message['error']['code']}: {message['error']['message']}")
    return message

domain, key, value = sys.argv[1:4] if len(sys.argv) == 4 else ("com.example.demo", "greeting", "hello")
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
    sock.connect(socket_path())
    print("protocol version", call(sock, {"id": 1, "op": "hello", "version": 1, "client": "client.py"})["version"])
    call(sock, {"id": 2, "op": "set", "domain": domain, "key": key, "value": value})
    print(key, "=", call(sock, {"id": 3, "op": "get", "domain": domain, "key": key}).get("value"))
