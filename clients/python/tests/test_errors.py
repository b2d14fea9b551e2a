# SPDX-License-Identifier: Apache-2.0
"""Refusals, client-side limits, and malformed frames in both directions."""

import os
import socket
import struct
import threading
import unittest

import prefsd
from prefsd import protocol
from prefsd.wire import FrameDecoder, Limits, encode_frame
from support import DaemonTestCase

DOMAIN = "com.example.python"


class RefusalTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.client = prefsd.Client(self.home.socket_path, timeout=10)
        self.addCleanup(self.client.close)

    def test_bad_domain_names(self):
        for name in ("../etc/passwd", "", ".hidden", "a b", "x" * 217):
            with self.subTest(name=name), self.assertRaises(prefsd.InvalidName) as caught:
                self.client.set(name, "k", 1)
            error = caught.exception
            self.assertEqual((error.code, error.operation, error.domain, error.key), ("invalidName", "set", name, "k"))
            self.assertTrue(error.message)
            self.assertIsInstance(error, prefsd.ServerError)
        self.assertEqual(self.client.list_domains(), [])  # nothing was written
        self.client.set("x" * 216, "k", 1)  # the longest name is fine

    def test_read_only_layers_and_bad_requests(self):
        with self.assertRaises(prefsd.ReadOnly) as caught:
            self.client.set(DOMAIN, "k", 1, scope="system")
        self.assertTrue(caught.exception.path)
        with self.assertRaises(prefsd.BadRequest) as caught:
            self.client.get(DOMAIN, "k", by_host=True, scope="forced")
        self.assertEqual(caught.exception.field, "byHost")
        with self.assertRaises(prefsd.UnknownOperation):
            self.client._call(protocol.Request("frobnicate", {}))
        with self.assertRaises(prefsd.NotFound):
            self.client.remove_domain("com.example.absent")
        # The connection serves on after refusals.
        self.client.set(DOMAIN, "still", "working")
        self.assertEqual(self.client.get(DOMAIN, "still"), "working")

    def test_corrupt_domain(self):
        path = os.path.join(self.home.preferences, "com.example.broken.plist")
        with open(path, "w") as file:
            file.write('<?xml version="1.0"?>\n<plist><dict><key>a</key>\n<integer>1</inte')
        os.utime(path, (os.path.getatime(path) - 10, os.path.getmtime(path) - 10))
        reads = (lambda: self.client.get("com.example.broken", "a"), lambda: self.client.read_domain("com.example.broken"))
        for read in reads:
            with self.assertRaises(prefsd.CorruptDomain) as caught:
                read()
            self.assertEqual(caught.exception.path, path)
            self.assertIn("line 3, column 17", caught.exception.message)
            self.assertIsNotNone(caught.exception.current_version)
        # A write is accepted and sets the file aside.
        self.client.set("com.example.broken", "b", 1)
        self.client.synchronize()
        self.assertEqual(self.client.get("com.example.broken", "b"), 1)
        names = os.listdir(self.home.preferences)
        self.assertTrue(any(name.startswith("com.example.broken.plist.corrupt-") for name in names), names)

    def test_server_side_key_limit(self):
        # The client checks keys itself; the daemon's refusal is the same class.
        with self.assertRaises(prefsd.LimitExceeded) as caught:
            self.client.set(DOMAIN, "k" * 1025, 1)
        self.assertTrue(caught.exception.client_side)
        self.assertEqual(caught.exception.limit, "maxKeyBytes")
        with self.assertRaises(prefsd.LimitExceeded) as caught:
            self.client._call(protocol.Request("set", {"domain": DOMAIN, "key": "k" * 1025, "value": 1}))
        self.assertFalse(caught.exception.client_side)
        self.assertIn("maxKeyBytes", caught.exception.message)

    def test_values_that_are_not_property_lists(self):
        for value in (None, float("nan"), float("inf"), 2**64, -(2**63) - 1, {1: "x"}, object(), {"a": {3}}):
            with self.subTest(value=value), self.assertRaises(prefsd.InvalidValue):
                self.client.set(DOMAIN, "k", value)
        deep = 0
        for _ in range(65):
            deep = [deep]
        with self.assertRaises(prefsd.LimitExceeded) as caught:
            self.client.set(DOMAIN, "k", deep)
        self.assertEqual(caught.exception.limit, "maxDepth")
        self.client.set(DOMAIN, "k", deep[0])  # 64 deep is allowed
        self.assertEqual(self.client.get(DOMAIN, "k"), deep[0])


class FrameLimitTests(DaemonTestCase):
    # prefsd keeps MaxFrameBytes at least MaxDomainBytes + 64 KiB, so that any domain fits in a reply.
    settings = {"MaxFrameBytes": 81920, "MaxDomainBytes": 16384}

    def test_client_refuses_a_frame_over_the_limit_before_sending(self):
        with prefsd.Client(self.home.socket_path, timeout=10) as client:
            self.assertEqual(client.limits.maxFrameBytes, 81920)
            with self.assertRaises(prefsd.LimitExceeded) as caught:
                client.set(DOMAIN, "big", b"x" * 90000)
            self.assertEqual(caught.exception.limit, "maxFrameBytes")
            self.assertTrue(caught.exception.client_side)
            client.set(DOMAIN, "small", b"x" * 1000)  # the connection is unaffected
            self.assertEqual(len(client.get(DOMAIN, "small")), 1000)

    def test_daemon_closes_a_connection_that_sends_a_frame_over_the_limit(self):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            raw.settimeout(10)
            raw.connect(self.home.socket_path)
            raw.sendall(encode_frame({"id": 1, "op": "hello", "version": 1}))
            raw.sendall(struct.pack(">I", 81921))  # the length alone is refused, before any payload
            decoder = FrameDecoder(Limits())
            messages = []
            while True:
                data = raw.recv(65536)
                if not data:
                    break
                decoder.feed(data)
                while (message := decoder.next_message()) is not None:
                    messages.append(protocol.read_message(message, None))
        self.assertEqual(messages[0].op, "hello")
        closing = messages[-1]
        self.assertEqual(closing.kind, "closing")
        error = prefsd.errors.error_from_wire(closing.payload)
        self.assertIsInstance(error, prefsd.LimitExceeded)
        self.assertEqual(error.limit, "maxFrameBytes")

    def test_the_daemon_refuses_a_domain_over_its_size_limit(self):
        with prefsd.Client(self.home.socket_path, timeout=10) as client:
            client.set(DOMAIN, "part0", b"y" * 10000)
            with self.assertRaises(prefsd.LimitExceeded) as caught:
                client.set(DOMAIN, "part1", b"y" * 10000)
            self.assertIn("maxDomainBytes", caught.exception.message)
            self.assertFalse(caught.exception.client_side)
            self.assertEqual(client.read_domain(DOMAIN).values, {"part0": b"y" * 10000})


class FakeDaemon:
    """A socket server that answers hello correctly and then sends what the test gives it."""

    def __init__(self, directory: str, after_hello: bytes) -> None:
        self.path = os.path.join(directory, "fake.socket")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.after_hello = after_hello
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        connection, _ = self.listener.accept()
        with connection:
            decoder = FrameDecoder()
            while (message := decoder.next_message()) is None:
                decoder.feed(connection.recv(65536))
            limits = {"maxFrameBytes": 1 << 20, "aLimitOfTheFuture": 5}
            connection.sendall(encode_frame({"id": message["id"], "op": "hello", "version": 1, "server": "fake",
                                             "limits": limits}))
            while (message := decoder.next_message()) is None:
                data = connection.recv(65536)
                if not data:
                    return
                decoder.feed(data)
            connection.sendall(self.after_hello)

    def close(self) -> None:
        self.listener.close()


class MalformedFromDaemonTests(unittest.TestCase):
    def setUp(self):
        import tempfile

        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def request_with_reply(self, after_hello: bytes) -> BaseException:
        fake = FakeDaemon(self.directory.name, after_hello)
        self.addCleanup(fake.close)
        client = prefsd.Client(fake.path, timeout=5, reconnect=False)
        self.addCleanup(client.close)
        self.assertEqual(client.limits.maxFrameBytes, 1 << 20)  # unknown limit names are ignored
        with self.assertRaises(prefsd.OutcomeUnknown) as caught:
            client.get(DOMAIN, "k")
        return caught.exception.__cause__

    def test_xml_payload(self):
        payload = b'<?xml version="1.0"?><plist version="1.0"><dict/></plist>'
        cause = self.request_with_reply(struct.pack(">I", len(payload)) + payload)
        self.assertIsInstance(cause, prefsd.ProtocolViolation)
        self.assertIn("not a binary property list", str(cause))

    def test_oversized_length(self):
        cause = self.request_with_reply(struct.pack(">I", (1 << 20) + 1))
        self.assertIn("exceeds maxFrameBytes", str(cause))

    def test_zero_length(self):
        self.assertIn("length 0", str(self.request_with_reply(struct.pack(">I", 0))))

    def test_array_at_top(self):
        self.assertIn("not a dictionary", str(self.request_with_reply(encode_frame_any([1, 2]))))

    def test_unknown_field(self):
        cause = self.request_with_reply(encode_frame({"id": 2, "op": "get", "version": 1, "colour": "red"}))
        self.assertIn("unknown field `colour`", str(cause))

    def test_wrong_type(self):
        cause = self.request_with_reply(encode_frame({"id": 2, "op": "get", "version": "one"}))
        self.assertIn("`version` must be an integer", str(cause))

    def test_stream_ends_mid_frame(self):
        cause = self.request_with_reply(struct.pack(">I", 100) + b"bplist00")
        self.assertIn("middle of a frame", str(cause))


def encode_frame_any(value) -> bytes:
    import plistlib

    payload = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
    return struct.pack(">I", len(payload)) + payload


class DecoderTests(unittest.TestCase):
    def test_frames_split_anywhere(self):
        frames = encode_frame({"id": 1, "op": "x"}) + encode_frame({"event": "closing"})
        decoder = FrameDecoder()
        received = []
        for byte in frames:
            decoder.feed(bytes([byte]))
            while (message := decoder.next_message()) is not None:
                received.append(message)
        self.assertEqual(received, [{"id": 1, "op": "x"}, {"event": "closing"}])
        decoder.finish()

    def test_failure_is_sticky(self):
        decoder = FrameDecoder()
        decoder.feed(struct.pack(">I", 0))
        with self.assertRaises(prefsd.ProtocolViolation):
            decoder.next_message()
        decoder.feed(encode_frame({"id": 1}))
        with self.assertRaises(prefsd.ProtocolViolation):
            decoder.next_message()

    def test_depth_and_object_limits_on_receive(self):
        limits = Limits(maxDepth=2, maxFrameObjects=50)
        deep = {"a": [[[[[1]]]]]}  # 6 levels: beyond maxDepth 2 + 3 for the message
        decoder = FrameDecoder(limits)
        decoder.feed(encode_frame(deep))
        with self.assertRaisesRegex(prefsd.ProtocolViolation, "nests deeper"):
            decoder.next_message()
        decoder = FrameDecoder(limits)
        decoder.feed(encode_frame({"a": list(range(100))}))
        with self.assertRaisesRegex(prefsd.ProtocolViolation, "maxFrameObjects"):
            decoder.next_message()
        with self.assertRaises(prefsd.LimitExceeded):
            encode_frame({"a": list(range(100))}, limits)


if __name__ == "__main__":
    unittest.main()
