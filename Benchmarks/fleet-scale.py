#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How a real three-member etcd cluster carries many watching hosts (docs/FLEET.md, "Scale").

    Benchmarks/fleet-scale.py [--transport gateway|grpc|proxy] [--proxies N] [HOSTS ...]
                                                  (default: gateway; 10 100 1000 5000)

For each count it starts a fresh cluster of Debian's etcd 3.4 on loopback, opens that many watches of the managed
prefix, and waits until etcd has created every one:

- `gateway`: through the JSON gateway (`/v3/watch`, one HTTP/1.1 connection each, as each prefsd holds one), spread
  over the members as the hosts' endpoint lists spread them;
- `grpc`: etcd's gRPC `Watch` service on the members, one HTTP/2 connection and stream each (what a gRPC transport in
  prefsd would hold), spread the same way;
- `proxy`: the same gRPC watches through `--proxies` (default 1) of etcd's own gRPC proxy (`etcd grpc-proxy start`),
  which coalesces identical watches into one watch on the cluster.

It then records each member's (and proxy's) resident memory and CPU time and the watchers the members count
(`etcd_debugging_mvcc_watcher_total` on their /metrics), makes 20 managed changes 200 ms apart, and times each change
from the put's sending to its event at every watcher: p50, p99 and the slowest over all hosts and changes. The
watchers are light (asyncio connections in this process; grpcio's for gRPC), so what is measured is etcd's part, not
prefsd's.

Needs etcd-server (scripts/install-deps.sh), python3-grpcio for `grpc` and `proxy` (`scripts/install-deps.sh
--bench`), and `ulimit -n` above the host count plus a margin.
"""
import argparse
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


class Proxies:
    """etcd's gRPC proxies in front of the cluster, each on a port of its own."""

    def __init__(self, directory, cluster, count):
        self.ports = free_ports(count)
        endpoints = ",".join(f"127.0.0.1:{port}" for port in cluster.client_ports)
        self.processes = []
        for index, port in enumerate(self.ports):
            arguments = [
                ETCD, "grpc-proxy", "start", "--endpoints", endpoints, "--listen-addr", f"127.0.0.1:{port}",
                "--advertise-client-url", f"127.0.0.1:{port}", "--data-dir", f"{directory}/proxy{index}",
            ]
            log = open(f"{directory}/proxy{index}.log", "w")
            self.processes.append(subprocess.Popen(arguments, stdout=log, stderr=log))

    def stop(self):
        for process in self.processes:
            process.kill()
            process.wait()


def watchers_counted(port):
    """The watchers a member counts (its /metrics gauge `etcd_debugging_mvcc_watcher_total`)."""
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        response = b""
        while chunk := connection.recv(1 << 16):
            response += chunk
    for line in response.decode(errors="replace").splitlines():
        if line.startswith("etcd_debugging_mvcc_watcher_total "):
            return int(float(line.split()[1]))
    return 0


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


def varint(value):
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def fields(message):
    """The (number, value) pairs of a protobuf message: integers for varints, bytes for length-delimited fields."""
    position = 0
    while position < len(message):
        key, position = read_varint(message, position)
        number, kind = key >> 3, key & 7
        if kind == 0:
            value, position = read_varint(message, position)
        elif kind == 2:
            length, position = read_varint(message, position)
            value, position = message[position:position + length], position + length
        elif kind == 1:
            value, position = message[position:position + 8], position + 8
        elif kind == 5:
            value, position = message[position:position + 4], position + 4
        else:
            raise ValueError(f"protobuf wire type {kind}")
        yield number, value


def read_varint(data, position):
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, position


class GRPCWatcher:
    """One host's watch on etcd's gRPC `Watch` service: its own HTTP/2 connection and one stream, the messages of
    etcd's rpc.proto written and read by hand (WatchRequest.create_request; WatchResponse.created and .events)."""

    def __init__(self, port, arrivals):
        self.port, self.arrivals = port, arrivals
        self.created = asyncio.Event()
        self.channel = None

    async def close(self):
        # An open channel keeps grpcio's threads, which the interpreter's exit would wait for.
        if self.channel is not None:
            await self.channel.close()

    async def run(self):
        import grpc

        # A subchannel pool of its own: grpcio otherwise shares one connection among channels to the same address.
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{self.port}", options=[("grpc.use_local_subchannel_pool", 1)])
        self.channel = channel
        end = bytearray(PREFIX)
        end[-1] += 1
        call = channel.stream_stream("/etcdserverpb.Watch/Watch")()
        await call.write(field(1, field(1, PREFIX) + field(2, bytes(end))))
        async for response in call:
            now = time.monotonic()
            for number, value in fields(response):
                if number == 3 and value:
                    self.created.set()
                elif number == 11:
                    kv = next(v for n, v in fields(value) if n == 2)
                    sequence = int(next(v for n, v in fields(kv) if n == 5))
                    self.arrivals.setdefault(sequence, []).append(now)


async def measure(hosts, transport, proxy_count):
    directory = tempfile.mkdtemp(prefix="fleet-scale.")
    cluster = Cluster(directory)
    proxies = None
    try:
        await healthy(cluster)
        if transport == "proxy":
            proxies = Proxies(directory, cluster, proxy_count)
            await asyncio.sleep(1)
        pids = [process.pid for process in cluster.processes]
        proxy_pids = [process.pid for process in proxies.processes] if proxies else []
        before = [member_stats(pid) for pid in pids]
        proxies_before = [member_stats(pid) for pid in proxy_pids]
        arrivals = {}
        if transport == "gateway":
            watchers = [Watcher(cluster.client_ports[i % 3], arrivals) for i in range(hosts)]
        elif transport == "grpc":
            watchers = [GRPCWatcher(cluster.client_ports[i % 3], arrivals) for i in range(hosts)]
        else:
            watchers = [GRPCWatcher(proxies.ports[i % proxy_count], arrivals) for i in range(hosts)]
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
        proxies_idle = [member_stats(pid) for pid in proxy_pids]
        counted = sum(watchers_counted(port) for port in cluster.client_ports)
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
        proxies_after = [member_stats(pid) for pid in proxy_pids]
        delays = [(arrival - put_times[s]) * 1000 for s in range(CHANGES) for arrival in arrivals.get(s, [])]
        missing = CHANGES * hosts - len(delays)
        delays.sort()
        rss_per_watcher = (sum(i[0] for i in idle) - sum(b[0] for b in before)) / hosts
        cpu_changes = sum(a[1] for a in after) - sum(i[1] for i in idle)
        through = f" through {proxy_count} gRPC prox{'y' if proxy_count == 1 else 'ies'}" if proxies else ""
        proxy_figures = ""
        if proxies:
            proxy_rss = (sum(i[0] for i in proxies_idle) - sum(b[0] for b in proxies_before)) / hosts
            proxy_cpu = sum(a[1] for a in proxies_after) - sum(i[1] for i in proxies_idle)
            proxy_figures = (f"; proxies' memory {sum(i[0] for i in proxies_idle) / 1024:.0f} MiB ({proxy_rss:.1f} KiB "
                             f"per watch), CPU {proxy_cpu * 1000 / CHANGES:.0f} ms per change")
        print(f"{hosts:>5} hosts, {transport}{through}: watches established in {established:.1f} s; members count "
              f"{counted} watchers; members' memory {sum(i[0] for i in idle) / 1024:.0f} MiB ({rss_per_watcher:.1f} "
              f"KiB per watch); propagation p50 {delays[len(delays) // 2]:.1f} ms, p99 "
              f"{delays[int(len(delays) * 0.99) - 1]:.1f} ms, slowest {delays[-1]:.1f} ms; members' CPU "
              f"{cpu_changes * 1000 / CHANGES:.0f} ms per change" + proxy_figures
              + (f"; {missing} events missing" if missing else ""), flush=True)
        for watcher in watchers:
            if isinstance(watcher, GRPCWatcher):
                await watcher.close()
        for task in tasks:
            task.cancel()
    finally:
        if proxies:
            proxies.stop()
        cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description="etcd carrying many watching hosts (docs/FLEET.md, Scale)")
    parser.add_argument("--transport", choices=["gateway", "grpc", "proxy"], default="gateway")
    parser.add_argument("--proxies", type=int, default=1, help="gRPC proxies in front of the cluster (proxy)")
    parser.add_argument("hosts", type=int, nargs="*", default=[10, 100, 1000, 5000])
    options = parser.parse_args()
    counts = options.hosts
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, max(counts) + 1000)), hard))
    if not os.access(ETCD, os.X_OK):
        sys.exit(f"error: {ETCD} is missing: install etcd-server (scripts/install-deps.sh)")
    if options.transport != "gateway":
        try:
            import grpc  # noqa: F401
        except ImportError:
            sys.exit("error: grpcio is missing: install python3-grpcio (scripts/install-deps.sh --bench)")
    for hosts in counts:
        # Not asyncio.run: its shutdown joins the default executor's threads, and grpcio's leave one waiting.
        loop = asyncio.new_event_loop()
        loop.run_until_complete(measure(hosts, options.transport, options.proxies))
    sys.stdout.flush()
    os._exit(0)  # grpcio's threads would keep the interpreter from exiting.


if __name__ == "__main__":
    main()
