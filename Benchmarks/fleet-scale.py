#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How a real three-member etcd cluster carries many watching hosts (docs/FLEET.md, "Scale").

    Benchmarks/fleet-scale.py [HOSTS ...]        (default: 10 100 1000 5000)

For each count it starts a fresh cluster of Debian's etcd 3.4 on loopback, opens that many watches of the managed
prefix through the JSON gateway (`/v3/watch`, one HTTP/1.1 connection each, as each prefsd holds one), spread over the
members as the hosts' endpoint lists spread them, and waits until etcd has created every one. It then records each
member's resident memory and CPU time, makes 20 managed changes 200 ms apart, and times each change from the put's
sending to its event at every watcher: p50, p99 and the slowest over all hosts and changes. The watchers are light
(one asyncio connection each, in this process), so what is measured is etcd's part, not prefsd's.

Needs etcd-server (scripts/install-deps.sh) and `ulimit -n` above the host count plus a margin.
"""
import asyncio
import base64
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ETCD = "/usr/bin/etcd"
PREFIX = b"/preferences/managed/"
CHANGES = 20


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def member_stats(pid):
    """Resident memory in KiB and CPU seconds (user + system) of a process."""
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return rss, (int(fields[11]) + int(fields[12])) / ticks


class Cluster:
    def __init__(self, directory):
        ports = free_ports(6)
        self.client_ports, peer_ports = ports[:3], ports[3:]
        initial = ",".join(f"m{i}=http://127.0.0.1:{peer_ports[i]}" for i in range(3))
        self.processes = []
        for i in range(3):
            arguments = [
                ETCD, "--name", f"m{i}", "--data-dir", f"{directory}/m{i}",
                "--listen-client-urls", f"http://127.0.0.1:{self.client_ports[i]}",
                "--advertise-client-urls", f"http://127.0.0.1:{self.client_ports[i]}",
                "--listen-peer-urls", f"http://127.0.0.1:{peer_ports[i]}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{peer_ports[i]}",
                "--initial-cluster", initial, "--initial-cluster-state", "new",
                "--initial-cluster-token", f"scale-{os.getpid()}", "--log-level", "error",
                "--quota-backend-bytes", str(1 << 30),
            ]
            log = open(f"{directory}/m{i}.log", "w")
            self.processes.append(subprocess.Popen(arguments, stdout=log, stderr=log))

    def stop(self):
        for process in self.processes:
            process.kill()
            process.wait()


async def request(port, path, body):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
    await writer.drain()
    response = await reader.read()
    writer.close()
    head, _, payload = response.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"{path}: {head[:80]!r}")
    if b"Transfer-Encoding: chunked" in head:
        payload = dechunk(payload)
    return json.loads(payload)


def dechunk(payload):
    out, rest = b"", payload
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line or b"0", 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


def b64(data):
    return base64.b64encode(data).decode()


async def healthy(cluster):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            await request(cluster.client_ports[0], "/v3/kv/put", {"key": b64(b"/health"), "value": b64(b"1")})
            return
        except Exception:
            await asyncio.sleep(0.2)
    raise RuntimeError("the cluster did not become healthy in 30 s")


class Watcher:
    """One host's watch: a streaming POST that yields newline-separated JSON messages in HTTP chunks."""

    def __init__(self, port, arrivals):
        self.port, self.arrivals = port, arrivals
        self.created = asyncio.Event()

    async def run(self):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        end = bytearray(PREFIX)
        end[-1] += 1
        body = json.dumps({"create_request": {"key": b64(PREFIX), "range_end": b64(bytes(end))}}).encode()
        writer.write(f"POST /v3/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        buffer = b""
        while True:
            size = int((await reader.readline()).strip() or b"0", 16)
            if size == 0:
                return
            buffer += await reader.readexactly(size + 2)
            buffer = buffer[:-2] if buffer.endswith(b"\r\n") else buffer
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                self.handle(json.loads(line))
            if buffer:
                try:
                    self.handle(json.loads(buffer))
                    buffer = b""
                except ValueError:
                    pass

    def handle(self, message):
        result = message.get("result", {})
        if result.get("created"):
            self.created.set()
        now = time.monotonic()
        for event in result.get("events", []):
            sequence = int(base64.b64decode(event["kv"]["value"]))
            self.arrivals.setdefault(sequence, []).append(now)


async def measure(hosts):
    directory = tempfile.mkdtemp(prefix="fleet-scale.")
    cluster = Cluster(directory)
    try:
        await healthy(cluster)
        pids = [process.pid for process in cluster.processes]
        before = [member_stats(pid) for pid in pids]
        arrivals = {}
        watchers = [Watcher(cluster.client_ports[i % 3], arrivals) for i in range(hosts)]
        started = time.monotonic()
        tasks = []
        for index, watcher in enumerate(watchers):
            tasks.append(asyncio.ensure_future(watcher.run()))
            if index % 200 == 199:
                await asyncio.sleep(0.05)  # A burst of connections, not a SYN flood.
        await asyncio.wait_for(asyncio.gather(*(w.created.wait() for w in watchers)), timeout=300)
        established = time.monotonic() - started
        await asyncio.sleep(2)
        idle = [member_stats(pid) for pid in pids]
        put_times = {}
        for sequence in range(CHANGES):
            key = PREFIX + b"all/forced/com.example.App"
            # From the put's sending: its event may reach watchers before its own answer arrives.
            put_times[sequence] = time.monotonic()
            value = b64(str(sequence).encode())
            await request(cluster.client_ports[sequence % 3], "/v3/kv/put", {"key": b64(key), "value": value})
            await asyncio.sleep(0.2)
        deadline = time.monotonic() + 30
        while any(len(arrivals.get(s, [])) < hosts for s in range(CHANGES)) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        after = [member_stats(pid) for pid in pids]
        delays = [(arrival - put_times[s]) * 1000 for s in range(CHANGES) for arrival in arrivals.get(s, [])]
        missing = CHANGES * hosts - len(delays)
        delays.sort()
        rss_per_watcher = (sum(i[0] for i in idle) - sum(b[0] for b in before)) / hosts
        cpu_changes = sum(a[1] for a in after) - sum(i[1] for i in idle)
        print(f"{hosts:>5} hosts: watches established in {established:.1f} s; members' memory "
              f"{sum(i[0] for i in idle) / 1024:.0f} MiB ({rss_per_watcher:.1f} KiB per watch); "
              f"propagation p50 {delays[len(delays) // 2]:.1f} ms, p99 {delays[int(len(delays) * 0.99) - 1]:.1f} ms, "
              f"slowest {delays[-1]:.1f} ms; members' CPU {cpu_changes * 1000 / CHANGES:.0f} ms per change"
              + (f"; {missing} events missing" if missing else ""), flush=True)
        for task in tasks:
            task.cancel()
    finally:
        cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    counts = [int(argument) for argument in sys.argv[1:]] or [10, 100, 1000, 5000]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, max(counts) + 1000)), hard))
    if not os.access(ETCD, os.X_OK):
        sys.exit(f"error: {ETCD} is missing: install etcd-server (scripts/install-deps.sh)")
    for hosts in counts:
        asyncio.run(measure(hosts))


if __name__ == "__main__":
    main()
