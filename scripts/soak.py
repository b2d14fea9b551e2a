#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make soak`: prefsd under a mixed load for a long time, judged on what a user would notice over days.

The load, on one prefsd in a temporary home (the release build by default; its stderr is the log):

- CLIENTS connections (default 50), one thread each: nine in ten behave (get, set, setMany, compare-and-set
  updates of a counter of their own in one of ten shared domains, reads of each other's keys, a synchronize every
  few operations), one in ten misbehaves (garbage bytes, a frame header announcing more than the limit, half a
  frame and silence, a hello and a hang-up in the middle of a request, requests with bad names, a subscription it
  never reads), round after round;
- SUBSCRIBERS subscriptions (default 200), each on a connection of its own, to the shared domains and the
  hand-edited one, reading every event;
- a hand edit of a domain file every second (by rename and in place, alternately), and SIGHUP every minute.

Every 10 s it samples prefsd's resident memory, descriptors and threads; at the end it prints the least-squares
slope of each over the last 20 minutes (or the last two thirds of a shorter run) and fails when the growth over
that window is more than 2 MiB of memory, 2 descriptors or 1 thread. Then it checks that nothing was lost: after
SIGTERM (which must exit 0), every behaving client's last acknowledged counter (a synchronize that returned) is on
disk, the last hand edit is on disk, and each subscription's values equal the domain's final contents. Any error
seen by a behaving client fails the run.

    scripts/soak.py --bin DIR [--minutes 30] [--clients 50] [--subscribers 200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import plistlib
import random
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(REPOSITORY, "clients", "python", "src"))

import prefsd  # noqa: E402
from prefsd.wire import encode_frame  # noqa: E402

SHARED_DOMAINS = [f"com.example.soak.shared{index}" for index in range(10)]
HAND_DOMAIN = "com.example.soak.hand"
#: The prefsd the soak started, killed at exit if it still runs (a failure of the soak itself).
DAEMONS: list[subprocess.Popen] = []
SYSTEMD_VARIABLES = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
                     "LISTEN_FDNAMES", "JOURNAL_STREAM")


class Run:
    """What every thread shares: the stop flag, the failures, and the facts checked at the end."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.failures: list[str] = []
        self.operations = 0
        self.misbehaviours = 0
        self.events = 0
        self.acknowledged: dict[tuple[str, str], int] = {}
        self.last_hand_edit = -1

    def fail(self, what: str) -> None:
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(what)

    def count(self, name: str, amount: int = 1) -> None:
        with self.lock:
            setattr(self, name, getattr(self, name) + amount)


def behaving_client(run: Run, socket_path: str, number: int) -> None:
    """One well-behaved application: its own counter key in a shared domain, other keys read, synchronize often."""
    domain = SHARED_DOMAINS[number % len(SHARED_DOMAINS)]
    key = f"client{number}"
    rng = random.Random(number)
    counter = 0
    client = prefsd.Client(socket_path, timeout=30)
    try:
        while not run.stopping.is_set():
            choice = rng.random()
            try:
                if choice < 0.35:
                    counter += 1
                    client.set(domain, key, counter)
                elif choice < 0.45:
                    counter += 1
                    client.set_many(domain, {key: counter, f"{key}.note": f"round {counter}"})
                elif choice < 0.55:
                    client.update(domain, f"{key}.updates", lambda old: (old or 0) + 1)
                elif choice < 0.85:
                    value = client.get(domain, key)
                    if counter and value != counter:
                        run.fail(f"{key}: read {value!r} after writing {counter}")
                else:
                    client.get(rng.choice(SHARED_DOMAINS), f"client{rng.randrange(50)}")
                if choice > 0.93:
                    client.synchronize()
                    with run.lock:
                        run.acknowledged[(domain, key)] = counter
                run.count("operations")
            except prefsd.PrefsdError as error:
                run.fail(f"{key}: {type(error).__name__}: {error}")
            time.sleep(rng.uniform(0.005, 0.03))
        client.synchronize()
        with run.lock:
            run.acknowledged[(domain, key)] = counter
    except prefsd.PrefsdError as error:
        run.fail(f"{key} at the end: {type(error).__name__}: {error}")
    finally:
        client.close()


def misbehaving_client(run: Run, socket_path: str, number: int) -> None:
    """A broken or hostile peer, a different way each round; prefsd must shed it and go on."""
    rng = random.Random(1000 + number)
    hello = encode_frame({"id": 1, "op": "hello", "version": 1, "client": "soak-misbehaving"})
    ways = ["garbage", "huge header", "half frame", "hang up mid-request", "bad names", "unread subscription"]
    round_number = 0
    while not run.stopping.is_set():
        way = ways[(number + round_number) % len(ways)]
        round_number += 1
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(5)
        try:
            sock.connect(socket_path)
            if way == "garbage":
                sock.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096))))
            elif way == "huge header":
                sock.sendall(hello + struct.pack(">I", 0x7FFFFFFF) + b"bplist00")
            elif way == "half frame":
                frame = encode_frame({"id": 2, "op": "get", "domain": "com.example.soak.shared0", "key": "k"})
                sock.sendall(hello + frame[: len(frame) // 2])
                run.stopping.wait(rng.uniform(1, 5))
            elif way == "hang up mid-request":
                frame = encode_frame({"id": 2, "op": "set", "domain": "com.example.soak.shared1", "key": "x",
                                      "value": "y" * 1000})
                sock.sendall(hello + frame[:7])
            elif way == "bad names":
                sock.sendall(hello + encode_frame({"id": 2, "op": "get", "domain": "../etc/passwd", "key": "k"})
                             + encode_frame({"id": 3, "op": "set", "domain": "", "key": "", "value": 1})
                             + encode_frame({"id": 4, "op": "no-such-operation"}))
                run.stopping.wait(0.5)
            else:
                sock.sendall(hello + encode_frame({"id": 2, "op": "subscribe", "domain": SHARED_DOMAINS[0]}))
                # Never read: prefsd's queue for this connection fills, and it must drop it, not grow.
                run.stopping.wait(rng.uniform(5, 20))
        except OSError:
            pass
        finally:
            sock.close()
        run.count("misbehaviours")
        run.stopping.wait(rng.uniform(0.05, 0.5))


def subscriber(run: Run, socket_path: str, number: int, subscriptions: list) -> None:
    """One subscription on a connection of its own, reading every event until the end."""
    domain = HAND_DOMAIN if number % 10 == 0 else SHARED_DOMAINS[number % len(SHARED_DOMAINS)]
    try:
        client = prefsd.Client(socket_path, timeout=30)
        subscription = client.subscribe(domain)
        with run.lock:
            subscriptions.append((domain, client, subscription))
        while not run.stopping.is_set():
            if subscription.next_event(timeout=1) is not None:
                run.count("events")
    except prefsd.PrefsdError as error:
        run.fail(f"subscriber {number} of {domain}: {type(error).__name__}: {error}")


def hand_editor(run: Run, preferences: str) -> None:
    """A person with an editor: a new version of the file every second, saved by rename and in place in turn."""
    path = os.path.join(preferences, HAND_DOMAIN + ".plist")
    number = 0
    while not run.stopping.wait(1):
        data = plistlib.dumps({"edit": number, "note": f"hand edit {number}"}, fmt=plistlib.FMT_XML)
        if number % 2 == 0:
            with open(path + ".editor-save", "wb") as file:
                file.write(data)
            os.rename(path + ".editor-save", path)
        else:
            with open(path, "r+b" if os.path.exists(path) else "wb") as file:
                file.write(data)
                file.truncate()
        with run.lock:
            run.last_hand_edit = number
        number += 1


def sample(pid: int) -> dict[str, float]:
    """prefsd's resident memory (KiB), open descriptors and threads now."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "Threads"):
                fields[name] = int(value.split()[0])
    return {"rss_kib": fields["VmRSS"], "threads": fields["Threads"], "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of (t, y) points, per unit of t."""
    count = len(points)
    if count < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / count
    mean_y = sum(y for _, y in points) / count
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (y - mean_y) for t, y in points) / spread if spread else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="the directory of the built prefsd")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--subscribers", type=int, default=200)
    parser.add_argument("--keep", help="keep the home, the log and the samples in this directory")
    options = parser.parse_args()

    home = options.keep or tempfile.mkdtemp(prefix="prefsd-soak-")
    os.makedirs(home, exist_ok=True)
    preferences = os.path.join(home, "prefs")
    run_directory = os.path.join(home, "run")
    os.makedirs(preferences, exist_ok=True)
    os.makedirs(run_directory, mode=0o700, exist_ok=True)
    os.makedirs(os.path.join(home, "system"), exist_ok=True)
    socket_path = os.path.join(run_directory, "socket")
    connections = options.clients + options.subscribers
    # The default (256) would leave no room for reconnects beside 250 long-lived connections.
    with open(os.path.join(preferences, "prefsd.plist"), "wb") as file:
        plistlib.dump({"MaxConnections": max(256, connections + 64)}, file, fmt=plistlib.FMT_XML)
    environment = {name: value for name, value in os.environ.items() if name not in SYSTEMD_VARIABLES}
    environment.update({
        "PREFERENCES_HOME": preferences, "PREFERENCES_SYSTEM_DIR": os.path.join(home, "system"),
        "PREFERENCES_DOMAINS_DIR": os.path.join(REPOSITORY, "Domains"), "PREFSD_SOCKET": socket_path,
        "HOME": home,
    })
    log_path = os.path.join(home, "prefsd.log")
    with open(log_path, "wb") as log:
        daemon = subprocess.Popen([os.path.join(options.bin, "prefsd")], env=environment, stdin=subprocess.DEVNULL,
                                  stdout=log, stderr=log)
    DAEMONS.append(daemon)
    deadline = time.monotonic() + 10
    while True:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(socket_path)
            break
        except OSError:
            if daemon.poll() is not None or time.monotonic() > deadline:
                print(f"error: prefsd did not start; its log is {log_path}", file=sys.stderr)
                return 1
            time.sleep(0.02)
        finally:
            probe.close()

    run = Run()
    subscriptions: list = []
    threads = []
    misbehaving = max(1, options.clients // 10)
    for number in range(options.clients):
        target = misbehaving_client if number % 10 == 9 else behaving_client
        threads.append(threading.Thread(target=target, args=(run, socket_path, number), daemon=True))
    for number in range(options.subscribers):
        threads.append(threading.Thread(target=subscriber, args=(run, socket_path, number, subscriptions),
                                        daemon=True))
    threads.append(threading.Thread(target=hand_editor, args=(run, preferences), daemon=True))
    for thread in threads:
        thread.start()
        time.sleep(0.005)

    print(f"soak: prefsd pid {daemon.pid}, {options.clients - misbehaving} behaving and {misbehaving} misbehaving "
          f"clients, {options.subscribers} subscriptions, a hand edit every second, SIGHUP every minute, "
          f"{options.minutes:g} min", flush=True)
    started = time.monotonic()
    samples: list[dict[str, float]] = []
    next_hup = started + 60
    next_report = started + 60
    while time.monotonic() - started < options.minutes * 60:
        if daemon.poll() is not None:
            run.fail(f"prefsd exited during the soak with status {daemon.returncode}")
            break
        now = time.monotonic()
        entry = sample(daemon.pid)
        entry["minute"] = (now - started) / 60
        samples.append(entry)
        if now >= next_hup:
            daemon.send_signal(signal.SIGHUP)
            next_hup += 60
        if now >= next_report:
            with run.lock:
                print(f"  {entry['minute']:5.1f} min: RSS {entry['rss_kib'] / 1024:6.1f} MiB, {entry['fds']:4.0f} fds, "
                      f"{entry['threads']:3.0f} threads; {run.operations} operations, {run.events} events, "
                      f"{run.misbehaviours} misbehaviours, {len(run.failures)} failures", flush=True)
            next_report += 60
        time.sleep(max(0.0, 10 - (time.monotonic() - now)))

    run.stopping.set()
    for thread in threads:
        thread.join(60)
    # Quiet now: every subscription must have caught up with the domain's contents.
    checker = prefsd.Client(socket_path, timeout=30)
    final = {}
    for domain in SHARED_DOMAINS + [HAND_DOMAIN]:
        try:
            final[domain] = checker.read_domain(domain).values
        except prefsd.NotFound:
            final[domain] = {}
    checker.close()
    for domain, client, subscription in subscriptions:
        caught_up = time.monotonic() + 10
        while subscription.values != final[domain] and time.monotonic() < caught_up:
            subscription.next_event(timeout=0.5)
        if subscription.values != final[domain]:
            run.fail(f"a subscription of {domain} ended with values other than the domain's")
        client.close()
    daemon.send_signal(signal.SIGTERM)
    try:
        status = daemon.wait(30)
    except subprocess.TimeoutExpired:
        daemon.kill()
        status = "killed after 30 s"
    if status != 0:
        run.fail(f"prefsd exited with {status} on SIGTERM")

    # Nothing lost: what was acknowledged is on disk.
    for (domain, key), counter in sorted(run.acknowledged.items()):
        path = os.path.join(preferences, domain + ".plist")
        with open(path, "rb") as file:
            stored = plistlib.load(file).get(key)
        if counter and (stored is None or stored < counter):
            run.fail(f"{domain} {key}: acknowledged {counter}, on disk {stored!r}")
    with open(os.path.join(preferences, HAND_DOMAIN + ".plist"), "rb") as file:
        edit = plistlib.load(file).get("edit")
    if edit != run.last_hand_edit:
        run.fail(f"the last hand edit was {run.last_hand_edit}, the file holds {edit!r}")

    # Flat: the slope over the last 20 minutes, or the last two thirds of a shorter run.
    window = min(20.0, options.minutes * 2 / 3)
    recent = [entry for entry in samples if entry["minute"] >= options.minutes - window]
    limits = {"rss_kib": 2048, "fds": 2, "threads": 1}
    print(f"soak: {run.operations} operations, {run.events} events delivered, {run.misbehaviours} misbehaviours; "
          f"over the last {window:g} min:")
    for name, limit in limits.items():
        per_minute = slope([(entry["minute"], entry[name]) for entry in recent])
        values = [entry[name] for entry in recent] or [0]
        unit = "KiB" if name == "rss_kib" else ""
        print(f"  {name:8} from {min(values):.0f} to {max(values):.0f}{unit}, slope {per_minute:+.2f}{unit}/min, "
              f"{per_minute * window:+.1f}{unit} over the window (limit {limit}{unit})")
        if per_minute * window > limit:
            run.fail(f"{name} grows: {per_minute:+.2f} per minute over the last {window:g} minutes")
    with open(log_path, "rb") as log:
        lines = log.read().decode("utf-8", "replace").splitlines()
    levels: dict[str, int] = {}
    for line in lines:
        for level in ("critical", "error", "warning", "notice", "info"):
            if f" {level} " in line or f"[{level}]" in line or line.startswith(level):
                levels[level] = levels.get(level, 0) + 1
                break
    print(f"  prefsd's log: {len(lines)} lines {levels}")
    # Misbehaving peers are notices; an error or worse is prefsd's own trouble.
    for line in lines:
        if " error " in line or " critical " in line:
            run.fail(f"prefsd logged: {line}")
    with open(os.path.join(home, "samples.json"), "w") as file:
        json.dump(samples, file)
    if run.failures:
        print(f"soak FAILED ({len(run.failures)} failures; home {home}):", file=sys.stderr)
        for failure in run.failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    print(f"soak passed; samples in {home}/samples.json" if options.keep else "soak passed")
    if not options.keep:
        subprocess.run(["rm", "-rf", home], check=False)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        # Whatever happened, no prefsd of the soak outlives it.
        for daemon in DAEMONS:
            if daemon.poll() is None:
                daemon.kill()
