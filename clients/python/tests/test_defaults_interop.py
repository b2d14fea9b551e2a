# SPDX-License-Identifier: Apache-2.0
"""Values written from Python read back by the Swift `defaults` command, and the other way round, with their
types preserved."""

import datetime
import plistlib
import unittest

import prefsd
from support import DaemonTestCase

DOMAIN = "com.example.interop"
UTC = datetime.timezone.utc


class DefaultsInteropTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.client = prefsd.Client(self.home.socket_path, timeout=10)
        self.addCleanup(self.client.close)

    def exported(self) -> dict:
        return plistlib.loads(self.home.defaults("export", DOMAIN, "-").stdout)

    def test_python_writes_defaults_reads(self):
        moment = datetime.datetime(2024, 5, 1, 12, 30, 0, tzinfo=UTC)
        values = {
            "Int": 42, "Float": 0.25, "Bool": True, "Date": moment, "Data": b"\x01\xab",
            "Array": [1, "two", False], "Dict": {"Nested": {"Deep": 3.5}}, "String": "héllo",
        }
        for key, value in values.items():
            self.client.set(DOMAIN, key, value)
        expected_types = {"Int": "integer", "Float": "float", "Bool": "boolean", "Date": "date", "Data": "data",
                          "Array": "array", "Dict": "dictionary", "String": "string"}
        for key, kind in expected_types.items():
            output = self.home.defaults("read-type", DOMAIN, key).stdout.decode().strip()
            self.assertEqual(output, f"Type is {kind}", key)
        self.assertEqual(self.home.defaults("read", DOMAIN, "Int").stdout.decode().strip(), "42")
        self.assertEqual(self.home.defaults("read", DOMAIN, "Bool").stdout.decode().strip(), "1")
        self.assertEqual(self.home.defaults("read", DOMAIN, "Date").stdout.decode().strip(),
                         "2024-05-01 12:30:00 +0000")
        exported = self.exported()
        exported["Date"] = exported["Date"].replace(tzinfo=UTC)
        self.assertEqual(exported, values)
        self.assertIs(type(exported["Bool"]), bool)
        self.assertIs(type(exported["Float"]), float)

    def test_defaults_writes_python_reads(self):
        self.home.defaults("write", DOMAIN, "Int", "-int", "-7")
        self.home.defaults("write", DOMAIN, "Float", "-float", "1.5")
        self.home.defaults("write", DOMAIN, "Bool", "-bool", "false")
        self.home.defaults("write", DOMAIN, "Date", "-date", "2024-05-01T12:30:00Z")
        self.home.defaults("write", DOMAIN, "Data", "-data", "00ff")
        self.home.defaults("write", DOMAIN, "Array", "-array", "a", "-int", "2")
        self.home.defaults("write", DOMAIN, "Dict", "-dict", "k", "-float", "2.5")
        self.home.defaults("write", DOMAIN, "String", "text")
        values = self.client.read_domain(DOMAIN).values
        self.assertEqual(values, {
            "Int": -7, "Float": 1.5, "Bool": False, "Date": datetime.datetime(2024, 5, 1, 12, 30, tzinfo=UTC),
            "Data": b"\x00\xff", "Array": ["a", 2], "Dict": {"k": 2.5}, "String": "text",
        })
        for key, kind in {"Int": int, "Float": float, "Bool": bool, "Date": datetime.datetime, "Data": bytes,
                          "Array": list, "Dict": dict, "String": str}.items():
            self.assertIs(type(values[key]), kind, key)

    def test_a_python_subscriber_sees_defaults_write(self):
        subscription = self.client.subscribe(DOMAIN)
        self.assertIsInstance(subscription.next_event(10), prefsd.Snapshot)
        self.home.defaults("write", DOMAIN, "FromShell", "-int", "5")
        change = subscription.next_event(10)
        self.assertEqual((change.key, change.new, change.origin.kind), ("FromShell", 5, "client"))
        self.assertIsNotNone(change.origin.pid)


if __name__ == "__main__":
    unittest.main()
