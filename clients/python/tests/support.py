# SPDX-License-Identifier: Apache-2.0
"""Runs the real prefsd (and defaults) from the debug build for the tests, each in a temporary home.

The bin directory comes from $PREFSD_BIN_DIR (run-tests.sh sets it from its argument); the repository's
Domains/ directory is found relative to this file.
"""

from __future__ import annotations

import os
import plistlib
import signal
import socket
import subprocess
import tempfile
import time
import unittest

REPOSITORY = os.environ.get("PREFSD_REPOSITORY") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SYSTEMD_VARIABLES = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID",
                     "LISTEN_FDNAMES", "JOURNAL_STREAM")


def bin_dir() -> str:
    directory = os.environ.get("PREFSD_BIN_DIR", "")
    if not directory or not os.access(os.path.join(directory, "prefsd"), os.X_OK):
        raise unittest.SkipTest("PREFSD_BIN_DIR does not name a directory with the built prefsd")
    return directory


class DaemonHome:
    """A user's Preferences directory, system directory and socket in a temporary directory, and a prefsd
    serving them. ``settings`` go into prefsd.plist (read by prefsd at start-up)."""

    def __init__(self, settings: dict | None = None, use_runtime_dir: bool = False) -> None:
        self._temporary = tempfile.TemporaryDirectory(prefix="prefsd-python-")
        self.directory = self._temporary.name
        self.preferences = os.path.join(self.directory, "prefs")
        self.runtime = os.path.join(self.directory, "runtime")
        os.makedirs(self.preferences)
        os.makedirs(self.runtime, mode=0o700)
        os.makedirs(os.path.join(self.directory, "system"))
        if use_runtime_dir:
            self.socket_path = os.path.join(self.runtime, "prefsd", "socket")
        else:
            self.socket_path = os.path.join(self.directory, "run", "socket")
        self.use_runtime_dir = use_runtime_dir
        if settings:
            with open(os.path.join(self.preferences, "prefsd.plist"), "wb") as file:
                plistlib.dump(settings, file, fmt=plistlib.FMT_XML)
        self.process: subprocess.Popen | None = None
        self._log_count = 0

    @property
    def environment(self) -> dict[str, str]:
        environment = {name: value for name, value in os.environ.items() if name not in SYSTEMD_VARIABLES}
        environment.update({
            "PREFERENCES_HOME": self.preferences,
            "PREFERENCES_SYSTEM_DIR": os.path.join(self.directory, "system"),
            "PREFERENCES_DOMAINS_DIR": os.path.join(REPOSITORY, "Domains"),
            "XDG_RUNTIME_DIR": self.runtime,
            "XDG_CONFIG_HOME": os.path.join(self.directory, "config"),
            "HOME": self.directory,
        })
        if self.use_runtime_dir:
            environment.pop("PREFSD_SOCKET", None)
        else:
            environment["PREFSD_SOCKET"] = self.socket_path
        return environment

    def start(self, timeout: float = 10.0) -> None:
        """Start prefsd and return once its socket accepts connections."""
        self._log_count += 1
        log = open(os.path.join(self.directory, f"prefsd-{self._log_count}.log"), "wb")
        self.process = subprocess.Popen([os.path.join(bin_dir(), "prefsd")], env=self.environment,
                                        stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"prefsd exited with {self.process.returncode}: {self.log()}")
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(self.socket_path)
                return
            except OSError:
                time.sleep(0.01)
            finally:
                probe.close()
        raise AssertionError(f"prefsd did not listen on {self.socket_path} within {timeout} s: {self.log()}")

    def log(self) -> str:
        path = os.path.join(self.directory, f"prefsd-{self._log_count}.log")
        with open(path, "rb") as file:
            return file.read().decode("utf-8", "replace")

    def kill(self) -> None:
        """SIGKILL prefsd and reap it (its stale socket stays, and the next prefsd reclaims it)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> int:
        """SIGTERM prefsd and return its exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(10)

    def defaults(self, *arguments: str, daemon: str = "on", check: bool = True) -> subprocess.CompletedProcess:
        """Run the built ``defaults`` with this home (through prefsd, unless ``daemon="off"``)."""
        environment = dict(self.environment, PREFERENCES_DAEMON=daemon)
        result = subprocess.run([os.path.join(bin_dir(), "defaults"), *arguments], env=environment,
                                capture_output=True, timeout=30)
        if check and result.returncode != 0:
            raise AssertionError(f"defaults {' '.join(arguments)} failed ({result.returncode}): "
                                 f"{result.stderr.decode(errors='replace')}")
        return result

    def close(self) -> None:
        self.kill()
        self._temporary.cleanup()


class DaemonTestCase(unittest.TestCase):
    """A test with its own prefsd, started before each test and killed after it."""

    settings: dict | None = None

    def setUp(self) -> None:
        self.home = DaemonHome(self.settings)
        self.addCleanup(self.home.close)
        self.home.start()
