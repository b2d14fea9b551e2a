# SPDX-License-Identifier: Apache-2.0
"""Subscriptions: snapshot then events with sequence numbers, interleaved with replies, and surviving a
restart of prefsd."""

import threading
import time
import unittest

import prefsd
from prefsd._subscription import SubscriptionState
from prefsd.protocol import Change, Domain, Origin, Request
from support import DaemonTestCase

DOMAIN = "com.example.python"
WAIT = 10.0


def next_event(subscription, timeout=WAIT):
    event = subscription.next_event(timeout)
    if event is None:
        raise AssertionError(f"no event within {timeout} s")
    return event


def changes_of(event):
    return event.changes if isinstance(event, prefsd.Batch) else [event]


class SubscriptionTests(DaemonTestCase):
    def client(self, **options):
        client = prefsd.Client(self.home.socket_path, timeout=10, **options)
        self.addCleanup(client.close)
        return client

    def test_snapshot_then_changes_from_another_client(self):
        writer = self.client()
        writer.set(DOMAIN, "Theme", "light")
        watcher = self.client()
        subscription = watcher.subscribe(DOMAIN)
        snapshot = next_event(subscription)
        self.assertIsInstance(snapshot, prefsd.Snapshot)
        self.assertEqual(snapshot.values, {"Theme": "light"})
        start = snapshot.sequences[Domain(DOMAIN)]
        version = writer.set(DOMAIN, "Theme", "dark")
        change = next_event(subscription)
        self.assertIsInstance(change, prefsd.Change)
        self.assertEqual((change.key, change.old, change.new, change.sequence), ("Theme", "light", "dark", version))
        self.assertGreater(change.sequence, start)
        self.assertEqual(change.origin.kind, "client")
        self.assertEqual(change.domain, Domain(DOMAIN))
        writer.set_many(DOMAIN, {"A": 1, "B": 2}, remove_keys=["Theme"])
        batch = next_event(subscription)
        self.assertIsInstance(batch, prefsd.Batch)
        self.assertEqual({(c.key, c.old, c.new) for c in batch.changes},
                         {("A", None, 1), ("B", None, 2), ("Theme", "dark", None)})
        self.assertEqual(subscription.values, {"A": 1, "B": 2})

    def test_key_and_prefix_filters_and_unsubscribe(self):
        client = self.client()
        by_key = client.subscribe(DOMAIN, key="Watched")
        by_prefix = client.subscribe(DOMAIN, key_prefix="Window.")
        next_event(by_key), next_event(by_prefix)
        client.set_many(DOMAIN, {"Other": 1, "Watched": 2, "Window.Width": 3})
        self.assertEqual([c.key for c in changes_of(next_event(by_key))], ["Watched"])
        self.assertEqual([c.key for c in changes_of(next_event(by_prefix))], ["Window.Width"])
        by_key.close()
        client.set(DOMAIN, "Watched", 5)
        with self.assertRaises(StopIteration):
            next(by_key)
        client.set(DOMAIN, "Window.Height", 4)
        self.assertEqual(next_event(by_prefix).key, "Window.Height")

    def test_effective_subscription(self):
        client = self.client()
        subscription = client.subscribe(app=DOMAIN, key="Language")
        self.assertEqual(next_event(subscription).values, {})
        client.set("NSGlobalDomain", "Language", "fr")
        change = next_event(subscription)
        self.assertEqual((change.new, change.domain.name), ("fr", "NSGlobalDomain"))
        client.set(DOMAIN, "Language", "en")
        self.assertEqual((next_event(subscription).new), "en")
        client.set("NSGlobalDomain", "Language", "de")  # hidden by the app domain: no event
        client.remove(DOMAIN, "Language")
        change = next_event(subscription)
        self.assertEqual((change.old, change.new), ("en", "de"))

    def test_events_interleave_with_replies_on_one_connection(self):
        client = self.client()
        subscription = client.subscribe(DOMAIN)
        next_event(subscription)
        versions = []
        for index in range(25):
            versions.append(client.set(DOMAIN, "Counter", index))  # events for these arrive among the replies
            self.assertEqual(client.get(DOMAIN, "Counter"), index)
        received = [next_event(subscription) for _ in range(25)]
        self.assertEqual([event.new for event in received], list(range(25)))
        self.assertEqual([event.sequence for event in received], versions)
        self.assertEqual(subscription.values, {"Counter": 24})

    def test_a_thread_iterates_while_others_make_requests(self):
        client = self.client()
        subscription = client.subscribe(DOMAIN, key_prefix="k")
        next_event(subscription)
        seen = []

        def iterate():
            for event in subscription:
                seen.extend(change.new for change in changes_of(event))
                if len(seen) == 60:
                    return

        reader = threading.Thread(target=iterate)
        reader.start()
        for index in range(60):
            client.set(DOMAIN, f"k{index}", index)
            self.assertEqual(client.get(DOMAIN, f"k{index}"), index)
        reader.join(WAIT)
        self.assertFalse(reader.is_alive())
        self.assertEqual(seen, list(range(60)))

    def test_subscription_survives_a_restart(self):
        writer_options = {"timeout": 10}
        client = self.client(max_reconnect_delay=0.2)
        subscription = client.subscribe(DOMAIN)
        self.assertEqual(next_event(subscription).values, {})
        with prefsd.Client(self.home.socket_path, **writer_options) as writer:
            writer.set(DOMAIN, "Before", 1)
            writer.synchronize()
        self.assertEqual(next_event(subscription).key, "Before")

        self.home.kill()
        self.assertIsNone(subscription.next_event(0.3))  # no daemon: reconnection attempts, no event
        # While prefsd is down, a program writes the file directly; the new snapshot includes it.
        self.home.defaults("write", DOMAIN, "WhileDown", "-int", "2", daemon="off")
        self.home.start()

        resync = next_event(subscription)
        self.assertIsInstance(resync, prefsd.Resync)
        self.assertEqual(resync.reason, "reconnect")
        self.assertEqual(resync.values, {"Before": 1, "WhileDown": 2})
        self.assertIn(Domain(DOMAIN), resync.sequences)
        with prefsd.Client(self.home.socket_path, **writer_options) as writer:
            writer.set(DOMAIN, "After", 3)
        change = next_event(subscription)
        self.assertEqual((change.key, change.new), ("After", 3))
        self.assertEqual(subscription.values, {"Before": 1, "WhileDown": 2, "After": 3})
        # The same client's requests work on the new connection.
        self.assertEqual(client.get(DOMAIN, "After"), 3)

    def test_subscription_survives_a_clean_stop(self):
        client = self.client(max_reconnect_delay=0.2)
        subscription = client.subscribe(DOMAIN)
        next_event(subscription)
        self.assertEqual(self.home.stop(), 0)  # SIGTERM: a closing event with shuttingDown
        self.home.start()
        self.assertIsInstance(next_event(subscription), prefsd.Resync)
        client.set(DOMAIN, "Later", True)
        self.assertEqual(next_event(subscription).key, "Later")

    def test_without_reconnect_the_subscription_ends_with_the_connection(self):
        client = self.client(reconnect=False)
        subscription = client.subscribe(DOMAIN)
        next_event(subscription)
        self.home.kill()
        with self.assertRaises(prefsd.ConnectionLost):
            next_event(subscription)

    def test_resync_after_overflow(self):
        self.home.kill()
        from support import DaemonHome

        home = DaemonHome({"SubscriptionQueueLength": 16})
        self.addCleanup(home.close)
        home.start()
        watcher = prefsd.Client(home.socket_path, timeout=10)
        self.addCleanup(watcher.close)
        subscription = watcher.subscribe(DOMAIN)
        next_event(subscription)
        with prefsd.Client(home.socket_path, timeout=10) as writer:
            # Changes of distinct keys cannot be coalesced; with 4 KiB each, the socket's buffers fill while the
            # watcher does not read, and prefsd's queue of 16 overflows into a resync.
            for index in range(400):
                writer.set(DOMAIN, f"key{index}", bytes(4096) + index.to_bytes(2, "big"))
        expected = {f"key{index}": bytes(4096) + index.to_bytes(2, "big") for index in range(400)}
        deadline = time.monotonic() + WAIT
        kinds = set()
        while subscription.values != expected:
            self.assertLess(time.monotonic(), deadline, "the values did not converge")
            kinds.add(type(next_event(subscription)).__name__)
        self.assertIn("Resync", kinds)


class SequenceTests(unittest.TestCase):
    def test_changes_at_or_below_the_snapshot_are_dropped(self):
        state = SubscriptionState(Request("subscribe", {"domain": DOMAIN}))
        domain = Domain(DOMAIN)
        origin = Origin("client")
        state.started({"a": 1}, {domain: 5}, None)
        state.event("change", Change(domain, "a", 0, 1, 5, origin))  # already in the snapshot
        state.event("change", Change(domain, "a", 1, 2, 6, origin))
        state.event("change", Change(domain, "a", 1, 2, 6, origin))  # a repeat
        events = [state.take() for _ in range(len(state.pending))]
        self.assertEqual([type(event).__name__ for event in events], ["Snapshot", "Change"])
        self.assertEqual(state.values, {"a": 2})
        self.assertEqual(state.dropped, 2)


if __name__ == "__main__":
    unittest.main()
