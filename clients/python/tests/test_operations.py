# SPDX-License-Identifier: Apache-2.0
"""Every operation of the protocol against the real prefsd."""

import datetime
import os
import plistlib
import threading
import unittest

import prefsd
from support import DaemonHome, DaemonTestCase

DOMAIN = "com.example.python"


class OperationTests(DaemonTestCase):
    def client(self, **options) -> prefsd.Client:
        client = prefsd.Client(self.home.socket_path, timeout=10, **options)
        self.addCleanup(client.close)
        return client

    def test_hello_negotiates_version_and_reports_limits(self):
        client = self.client()
        self.assertEqual(client.protocol_version, 1)
        self.assertTrue(client.server.startswith("prefsd"), client.server)
        self.assertEqual(client.limits.maxFrameBytes, 16 << 20)
        self.assertEqual(client.limits.maxKeyBytes, 1024)

    def test_set_get_and_versions(self):
        client = self.client()
        self.assertIsNone(client.get(DOMAIN, "Missing"))
        self.assertEqual(client.get(DOMAIN, "Missing", "fallback"), "fallback")
        first = client.set(DOMAIN, "Theme", "dark")
        second = client.set(DOMAIN, "FontSize", 13)
        self.assertGreater(second, first)
        self.assertEqual(client.get(DOMAIN, "Theme"), "dark")
        self.assertEqual(client.get_versioned(DOMAIN, "FontSize"), prefsd.Versioned(13, second))
        # Storing the value a key already has changes nothing, not even the version.
        self.assertEqual(client.set(DOMAIN, "FontSize", 13), second)

    def test_values_keep_their_types(self):
        client = self.client()
        moment = datetime.datetime(2024, 5, 1, 12, 30, 15, tzinfo=datetime.timezone.utc)
        values = {
            "string": "text é", "int": -42, "big": 2**64 - 1, "float": 2.5, "true": True, "false": False,
            "date": moment, "data": b"\x00\x01\xff", "array": [1, "two", [3.0]], "dict": {"a": {"b": [True]}},
            "empty": {}, "uid": plistlib.UID(7),
        }
        client.set_many(DOMAIN, values)
        contents = client.read_domain(DOMAIN)
        self.assertEqual(contents.values, values)
        self.assertIs(type(contents.values["true"]), bool)
        self.assertIs(type(contents.values["int"]), int)
        self.assertEqual(contents.values["date"].tzinfo, datetime.timezone.utc)
        # Naive datetimes are taken as UTC, as plistlib does; tuples and bytearrays travel as arrays and data.
        client.set(DOMAIN, "naive", datetime.datetime(2024, 5, 1, 12, 30, 15))
        client.set(DOMAIN, "tuple", (1, bytearray(b"xy")))
        self.assertEqual(client.get(DOMAIN, "naive"), moment)
        self.assertEqual(client.get(DOMAIN, "tuple"), [1, b"xy"])

    def test_set_many_remove_and_domains(self):
        client = self.client()
        client.set_many(DOMAIN, {"a": 1, "b": 2, "c": 3})
        version = client.set_many(DOMAIN, {"d": 4}, remove_keys=["a", "b"])
        self.assertEqual(client.read_domain(DOMAIN), prefsd.DomainContents({"c": 3, "d": 4}, version))
        after_remove = client.remove(DOMAIN, "c")
        self.assertGreater(after_remove, version)
        self.assertEqual(client.remove(DOMAIN, "c"), after_remove)  # an absent key: no error, no change
        client.write_domain(DOMAIN, {"only": "this"})
        self.assertEqual(client.read_domain(DOMAIN).values, {"only": "this"})
        client.set("com.example.other", "k", 1)
        self.assertEqual(client.list_domains(), sorted([DOMAIN, "com.example.other"], key=str.encode))
        client.remove_domain("com.example.other")
        self.assertEqual(client.list_domains(), [DOMAIN])
        with self.assertRaises(prefsd.NotFound):
            client.read_domain("com.example.other")

    def test_by_host_domains(self):
        client = self.client()
        client.set(DOMAIN, "Window", "per machine", by_host=True)
        self.assertIsNone(client.get(DOMAIN, "Window"))
        self.assertEqual(client.get(DOMAIN, "Window", by_host=True), "per machine")
        self.assertEqual(client.list_domains(by_host=True), [DOMAIN])
        self.assertEqual(client.list_domains(), [])

    def test_synchronize_puts_changes_on_disk(self):
        client = self.client()
        client.set(DOMAIN, "Durable", [1, 2])
        client.synchronize()
        with open(os.path.join(self.home.preferences, DOMAIN + ".plist"), "rb") as file:
            self.assertEqual(plistlib.load(file), {"Durable": [1, 2]})

    def test_fleet_status_of_a_daemon_in_no_fleet(self):
        self.assertIsNone(self.client().fleet_status())

    def test_fleet_status_reply_is_read_strictly(self):
        date = datetime.datetime(2026, 9, 21, 14, 13, 20, tzinfo=datetime.timezone.utc)
        reply = {
            "id": 3, "op": "fleetStatus", "inFleet": True, "state": "offline", "endpoint": "http://e:2379",
            "revision": 40, "latestRevision": 42, "lastError": "no etcd endpoint answered", "lastErrorDate": date,
            "refusedValues": 1, "cacheDirectory": "/p/Fleet",
        }
        status = prefsd.protocol.read_message(reply, "fleetStatus").result
        self.assertEqual(
            status,
            prefsd.FleetStatus(
                "offline", 40, 1, "/p/Fleet", "http://e:2379", 42, "no etcd endpoint answered", status.last_error_date
            ),
        )
        self.assertEqual(status.last_error_date.timestamp(), date.timestamp())
        self.assertEqual(status.lag, 2)
        with self.assertRaises(prefsd.ProtocolViolation):
            prefsd.protocol.read_message({"id": 3, "op": "fleetStatus", "inFleet": True, "state": "x"}, None)
        with self.assertRaises(prefsd.ProtocolViolation):
            prefsd.protocol.read_message({"id": 3, "op": "fleetStatus", "inFleet": False, "state": "x"}, None)

    def test_get_effective_explains_the_search_list(self):
        client = self.client()
        client.set("NSGlobalDomain", "Language", "fr")
        client.set("com.example.suite", "Language", "de")
        resolution = client.get_effective(DOMAIN, "Language", suites=["com.example.suite"])
        self.assertEqual(resolution.value, "de")
        self.assertEqual((resolution.source.layer, resolution.source.domain), ("suite", "com.example.suite"))
        self.assertEqual([(value, source.layer) for value, source in resolution.shadowed], [("fr", "global")])
        client.set(DOMAIN, "Language", "en")
        self.assertEqual(client.get_effective(DOMAIN, "Language", ["com.example.suite"]).source.layer, "app")
        nothing = client.get_effective(DOMAIN, "Absent")
        self.assertIsNone(nothing.value)
        self.assertIsNone(nothing.source)

    def test_compare_and_set(self):
        client = self.client()
        version = client.set(DOMAIN, "Counter", 1)
        client.set(DOMAIN, "Counter", 2, expected_version=version)
        with self.assertRaises(prefsd.VersionConflict) as caught:
            client.set(DOMAIN, "Counter", 99, expected_version=version)
        conflict = caught.exception
        self.assertEqual(conflict.current_version, client.get_versioned(DOMAIN, "Counter").version)
        self.assertEqual((conflict.operation, conflict.domain, conflict.key), ("set", DOMAIN, "Counter"))
        self.assertIn("version", conflict.message)
        self.assertEqual(client.get(DOMAIN, "Counter"), 2)  # the refused write changed nothing
        with self.assertRaises(prefsd.VersionConflict):
            client.write_domain(DOMAIN, {}, expected_version=version)
        with self.assertRaises(prefsd.VersionConflict):
            client.remove_domain(DOMAIN, expected_version=version)

    def test_update_loses_no_increment_across_clients(self):
        clients = [self.client() for _ in range(3)]
        errors = []

        def increment(client):
            try:
                for _ in range(30):
                    client.update(DOMAIN, "Launches", lambda old: (old or 0) + 1)
            except Exception as error:  # reported below
                errors.append(error)

        threads = [threading.Thread(target=increment, args=(client,)) for client in clients]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(clients[0].get(DOMAIN, "Launches"), 90)

    def test_one_client_shared_by_threads(self):
        client = self.client()
        failures = []

        def work(index):
            try:
                for round_ in range(40):
                    client.set(DOMAIN, f"thread{index}", round_)
                    if client.get(DOMAIN, f"thread{index}") != round_:
                        failures.append((index, round_))
            except Exception as error:
                failures.append(error)

        threads = [threading.Thread(target=work, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(failures, [])

    def test_requests_reconnect_after_a_restart(self):
        client = self.client()
        client.set(DOMAIN, "Before", 1)
        client.synchronize()
        self.home.kill()
        with self.assertRaises(prefsd.DaemonUnavailable):
            client.get(DOMAIN, "Before")
        self.home.start()
        self.assertEqual(client.get(DOMAIN, "Before"), 1)

    def test_no_daemon(self):
        self.home.kill()
        os.unlink(self.home.socket_path)
        with self.assertRaises(prefsd.DaemonUnavailable) as caught:
            prefsd.Client(self.home.socket_path)
        self.assertIn(self.home.socket_path, str(caught.exception))


class SocketPathTests(unittest.TestCase):
    def test_client_finds_the_daemon_by_xdg_runtime_dir(self):
        home = DaemonHome(use_runtime_dir=True)
        self.addCleanup(home.close)
        home.start()
        environment = {"XDG_RUNTIME_DIR": home.runtime + "/"}
        self.assertEqual(prefsd.socket_path(environment), home.socket_path)
        with prefsd.Client(prefsd.socket_path(environment)) as client:
            client.set(DOMAIN, "Found", True)
            self.assertTrue(client.get(DOMAIN, "Found"))

    def test_rules(self):
        from unittest import mock

        self.assertEqual(prefsd.socket_path({"PREFSD_SOCKET": "/x/s", "XDG_RUNTIME_DIR": "/r"}), "/x/s")
        self.assertEqual(prefsd.socket_path({"PREFSD_SOCKET": "", "XDG_RUNTIME_DIR": "/r//"}), "/r/prefsd/socket")
        with mock.patch("prefsd.paths.os.path.isdir", lambda path: path == "/run/user/1234"):
            self.assertEqual(prefsd.socket_path({"XDG_RUNTIME_DIR": ""}, uid=1234), "/run/user/1234/prefsd/socket")
            self.assertEqual(prefsd.socket_path({}, uid=1235), "/tmp/prefsd-1235/socket")


if __name__ == "__main__":
    unittest.main()
