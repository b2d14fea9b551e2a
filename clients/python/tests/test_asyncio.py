# SPDX-License-Identifier: Apache-2.0
"""The asyncio client against the real prefsd: operations, errors, subscriptions, and a restart."""

import asyncio
import unittest

import prefsd
from prefsd import Domain
from support import DaemonTestCase

DOMAIN = "com.example.python.async"
WAIT = 10.0


async def next_event(subscription, timeout=WAIT):
    event = await subscription.next_event(timeout)
    if event is None:
        raise AssertionError(f"no event within {timeout} s")
    return event


class AsyncClientTests(DaemonTestCase):
    def run_async(self, coroutine):
        return asyncio.run(asyncio.wait_for(coroutine, 40))

    def test_operations_and_errors(self):
        async def scenario():
            async with await prefsd.AsyncClient.connect(self.home.socket_path, timeout=10) as client:
                self.assertEqual(client.protocol_version, 1)
                version = await client.set(DOMAIN, "Theme", "dark")
                self.assertEqual(await client.get(DOMAIN, "Theme"), "dark")
                self.assertEqual(await client.get_versioned(DOMAIN, "Theme"), prefsd.Versioned("dark", version))
                await client.set_many(DOMAIN, {"a": [1, 2], "b": {"c": b"d"}}, remove_keys=["Theme"])
                contents = await client.read_domain(DOMAIN)
                self.assertEqual(contents.values, {"a": [1, 2], "b": {"c": b"d"}})
                await client.write_domain(DOMAIN, {"only": 1.5}, expected_version=contents.version)
                with self.assertRaises(prefsd.VersionConflict) as caught:
                    await client.remove(DOMAIN, "only", expected_version=contents.version)
                self.assertIsNotNone(caught.exception.current_version)
                with self.assertRaises(prefsd.InvalidName):
                    await client.get("bad/name", "k")
                self.assertEqual(await client.list_domains(), [DOMAIN])
                await client.synchronize()
                self.assertEqual((await client.get_effective(DOMAIN, "only")).source.layer, "app")
                results = await asyncio.gather(*(client.update(DOMAIN, "n", lambda old: (old or 0) + 1)
                                                 for _ in range(20)))
                self.assertEqual(sorted(results), list(range(1, 21)))
                await client.remove_domain(DOMAIN)
                with self.assertRaises(prefsd.NotFound):
                    await client.read_domain(DOMAIN)

        self.run_async(scenario())

    def test_pipelined_requests_and_interleaved_events(self):
        async def scenario():
            async with await prefsd.AsyncClient.connect(self.home.socket_path, timeout=10) as client:
                subscription = await client.subscribe(DOMAIN)
                self.assertIsInstance(await next_event(subscription), prefsd.Snapshot)
                # Forty requests in flight at once on one connection, events arriving among their replies.
                versions = await asyncio.gather(*(client.set(DOMAIN, f"k{index}", index) for index in range(40)))
                self.assertEqual(len(set(versions)), 40)
                received = []
                while len(received) < 40:
                    event = await next_event(subscription)
                    received.extend(event.changes if isinstance(event, prefsd.Batch) else [event])
                self.assertEqual(sorted(change.sequence for change in received), sorted(versions))
                self.assertEqual(subscription.values, {f"k{index}": index for index in range(40)})
                await subscription.close()
                with self.assertRaises(StopAsyncIteration):
                    await subscription.__anext__()

        self.run_async(scenario())

    def test_async_for_survives_a_restart(self):
        async def scenario():
            client = await prefsd.AsyncClient.connect(self.home.socket_path, timeout=10, max_reconnect_delay=0.2)
            async with client:
                subscription = await client.subscribe(DOMAIN, key_prefix="K")
                seen = []

                async def consume():
                    async for event in subscription:
                        seen.append(event)
                        if isinstance(event, prefsd.Change) and event.key == "KAfter":
                            return

                consumer = asyncio.create_task(consume())
                await client.set(DOMAIN, "KBefore", 1)
                while len(seen) < 2:
                    await asyncio.sleep(0.01)
                await client.synchronize()  # on disk before the SIGKILL
                await asyncio.get_running_loop().run_in_executor(None, self.home.kill)
                await asyncio.sleep(0.2)
                await asyncio.get_running_loop().run_in_executor(None, self.home.start)
                while not any(isinstance(event, prefsd.Resync) for event in seen):
                    await asyncio.sleep(0.01)
                await client.set(DOMAIN, "KAfter", 2)
                await asyncio.wait_for(consumer, WAIT)
                kinds = [type(event).__name__ for event in seen]
                self.assertEqual(kinds, ["Snapshot", "Change", "Resync", "Change"])
                self.assertEqual(seen[2].reason, "reconnect")
                self.assertEqual(seen[2].values, {"KBefore": 1})
                self.assertIn(Domain(DOMAIN), seen[2].sequences)
                self.assertEqual(subscription.values, {"KBefore": 1, "KAfter": 2})

        self.run_async(scenario())

    def test_no_daemon(self):
        self.home.kill()

        async def scenario():
            with self.assertRaises(prefsd.DaemonUnavailable):
                await prefsd.AsyncClient.connect(self.home.socket_path)

        self.run_async(scenario())


if __name__ == "__main__":
    unittest.main()
