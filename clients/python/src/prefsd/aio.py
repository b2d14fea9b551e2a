# SPDX-License-Identifier: Apache-2.0
"""The asyncio client: the same operations as :class:`prefsd.Client`, awaited, and subscriptions as
asynchronous iterators.

One connection per client, read by a task of its own that hands replies to the requests waiting for them (by
``id``) and events to their subscriptions. When the connection is lost and subscriptions are open, a task
reconnects with a growing delay, subscribes again and queues a :class:`~prefsd.protocol.Resync` with
``reason="reconnect"`` and the new snapshot; requests connect again when next made.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from . import protocol
from ._operations import Operations
from ._subscription import SubscriptionState, subscribe_request
from .client import CLIENT_NAME, _NOT_PERFORMED_CODES
from .errors import (
    ConnectionLost,
    DaemonUnavailable,
    LimitExceeded,
    OutcomeUnknown,
    PrefsdError,
    ProtocolViolation,
    RequestTimeout,
    ServerError,
    VersionConflict,
    error_from_wire,
)
from .paths import socket_path
from .protocol import EventMessage, Reply, Request
from .wire import PROTOCOL_VERSION, FrameDecoder, Limits, encode_frame

__all__ = ["AsyncClient", "AsyncSubscription"]

_READ_SIZE = 1 << 16


class _AsyncConnection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, decoder: FrameDecoder,
                 version: int, server: str, limits: Limits) -> None:
        self.reader = reader
        self.writer = writer
        self.decoder = decoder
        self.version = version
        self.server = server
        self.limits = limits
        self.broken: BaseException | None = None
        self.closing: ServerError | None = None
        self.subscriptions: dict[int, SubscriptionState] = {}
        self.unsubscribing: set[int] = set()
        self.task: asyncio.Task[None] | None = None


async def _next_message(reader: asyncio.StreamReader, decoder: FrameDecoder) -> dict[str, Any] | None:
    """The next whole message, or ``None`` at end of stream."""
    while True:
        message = decoder.next_message()
        if message is not None:
            return message
        data = await reader.read(_READ_SIZE)
        if not data:
            decoder.finish()
            return None
        decoder.feed(data)


class AsyncClient(Operations):
    """A connection to prefsd for asyncio code. Create it with ``await AsyncClient.connect(...)`` (or
    ``async with await AsyncClient.connect() as client``); every operation of :class:`prefsd.Client` is a
    coroutine here (``await client.get(...)``), and :meth:`subscribe` returns an :class:`AsyncSubscription`
    to use with ``async for``. The parameters are those of :class:`prefsd.Client`.
    """

    def __init__(self, path: str | None = None, *, timeout: float = 30.0, reconnect: bool = True,
                 max_reconnect_delay: float = 2.0, name: str = CLIENT_NAME) -> None:
        self.path = path if path is not None else socket_path()
        self.timeout = timeout
        self.reconnect = reconnect
        self.max_reconnect_delay = max_reconnect_delay
        self.name = name
        self._conn: _AsyncConnection | None = None
        self._last: _AsyncConnection | None = None
        self._opening: asyncio.Task[_AsyncConnection] | None = None
        self._reconnector: asyncio.Task[None] | None = None
        self._closed = False
        self._next_id = 1
        self._waiting: dict[int, tuple[Request, _AsyncConnection, SubscriptionState | None, asyncio.Future[Reply]]] = {}
        self._abandoned: set[int] = set()
        self._active: list[SubscriptionState] = []
        self._signal = asyncio.Event()
        self._last_failure: BaseException | None = None

    @classmethod
    async def connect(cls, path: str | None = None, **options: Any) -> "AsyncClient":
        """Connect and say ``hello``; the options are those of :class:`prefsd.Client`."""
        client = cls(path, **options)
        await client._ensure_open()
        return client

    @property
    def limits(self) -> Limits:
        """The daemon's limits from the latest ``hello``."""
        conn = self._conn or self._last
        return conn.limits if conn else Limits()

    @property
    def server(self) -> str:
        """The daemon's name and version from the latest ``hello``."""
        conn = self._conn or self._last
        return conn.server if conn else ""

    @property
    def protocol_version(self) -> int:
        """The negotiated protocol version."""
        conn = self._conn or self._last
        return conn.version if conn else PROTOCOL_VERSION

    def _notify(self) -> None:
        self._signal.set()
        self._signal = asyncio.Event()

    def _allocate_id(self) -> int:
        request_id = self._next_id
        self._next_id += 1
        return request_id

    # --- Connecting -------------------------------------------------------------------------------------------

    async def _open(self) -> _AsyncConnection:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(self.path), self.timeout)
        except (OSError, asyncio.TimeoutError) as error:
            raise DaemonUnavailable(f"no prefsd answers at {self.path}: {getattr(error, 'strerror', None) or error}") \
                from error
        try:
            return await asyncio.wait_for(self._handshake(reader, writer), self.timeout)
        except asyncio.TimeoutError:
            writer.close()
            raise RequestTimeout(f"prefsd at {self.path} did not answer hello within {self.timeout} s") from None
        except OSError as error:
            writer.close()
            raise DaemonUnavailable(f"prefsd at {self.path} closed the connection during hello: {error}") from error
        except BaseException:
            writer.close()
            raise

    async def _handshake(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> _AsyncConnection:
        decoder = FrameDecoder(Limits())
        hello_id = self._allocate_id()
        writer.write(encode_frame({"id": hello_id, "op": "hello", "version": PROTOCOL_VERSION, "client": self.name}))
        await writer.drain()
        message = await _next_message(reader, decoder)
        if message is None:
            raise DaemonUnavailable(f"prefsd at {self.path} closed the connection before answering hello")
        parsed = protocol.read_message(message, "hello")
        if isinstance(parsed, EventMessage):
            if parsed.kind == "closing":
                raise error_from_wire(parsed.payload, operation="hello")
            raise ProtocolViolation(f"prefsd sent a {parsed.kind} event before answering hello")
        if parsed.id != hello_id:
            raise ProtocolViolation(f"prefsd answered request {parsed.id} while {hello_id} (hello) waited")
        if parsed.error is not None:
            raise error_from_wire(parsed.error, operation="hello")
        version, server, limits = parsed.result
        if version != PROTOCOL_VERSION:
            raise ProtocolViolation(f"prefsd chose protocol version {version}, outside the range offered (1...1)")
        decoder.limits = limits
        conn = _AsyncConnection(reader, writer, decoder, version, server, limits)
        states = [state for state in self._active if not state.closed]
        if states:
            waiting = {}
            for state in states:
                request_id = self._allocate_id()
                waiting[request_id] = state
                writer.write(encode_frame(state.request.message(request_id), limits))
            await writer.drain()
            while waiting:
                message = await _next_message(reader, decoder)
                if message is None:
                    raise DaemonUnavailable(f"prefsd at {self.path} closed the connection while subscribing again")
                parsed = protocol.read_message(message, "subscribe" if message.get("id") in waiting else None)
                if isinstance(parsed, EventMessage):
                    if parsed.kind == "closing":
                        raise error_from_wire(parsed.payload, operation="subscribe")
                    state = conn.subscriptions.get(parsed.subscription)
                    if state is None:
                        raise ProtocolViolation(f"prefsd sent an event of unknown subscription {parsed.subscription}")
                    state.event(parsed.kind, parsed.payload)
                    continue
                state = waiting.pop(parsed.id, None)
                if state is None:
                    raise ProtocolViolation(f"prefsd answered request {parsed.id}, which was not sent")
                if parsed.error is not None:
                    state.closed = True
                    state.error = state.request.error(parsed.error)
                    continue
                server_id, values, sequences = parsed.result
                state.server_id = server_id
                conn.subscriptions[server_id] = state
                state.started(values, sequences, "reconnect")
        return conn

    async def _open_and_publish(self) -> _AsyncConnection:
        conn = await self._open()
        if self._closed:
            conn.writer.close()
            raise PrefsdError("the client is closed")
        self._conn = self._last = conn
        self._last_failure = None
        conn.task = asyncio.get_running_loop().create_task(self._read_loop(conn))
        self._notify()
        return conn

    async def _ensure_open(self) -> _AsyncConnection:
        """The working connection; connects once if there is none (sharing an attempt already under way)."""
        if self._closed:
            raise PrefsdError("the client is closed")
        if self._conn is not None and self._conn.broken is None:
            return self._conn
        if self._opening is None or self._opening.done():
            self._opening = asyncio.get_running_loop().create_task(self._open_and_publish())
        try:
            return await asyncio.shield(self._opening)
        except (PrefsdError, OSError) as error:
            self._last_failure = error
            raise

    async def _reconnect_loop(self) -> None:
        delay = 0.05
        while not self._closed and any(not state.closed for state in self._active):
            if self._conn is not None and self._conn.broken is None:
                return
            try:
                await self._ensure_open()
                return
            except (PrefsdError, OSError):
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_reconnect_delay)

    def _start_reconnecting(self) -> None:
        if self.reconnect and not self._closed and (self._reconnector is None or self._reconnector.done()):
            if any(not state.closed for state in self._active):
                self._reconnector = asyncio.get_running_loop().create_task(self._reconnect_loop())

    # --- Reading ----------------------------------------------------------------------------------------------

    async def _read_loop(self, conn: _AsyncConnection) -> None:
        error: BaseException = ConnectionLost(f"prefsd at {self.path} closed the connection")
        try:
            while conn.broken is None:
                message = await _next_message(conn.reader, conn.decoder)
                if message is None:
                    break
                self._dispatch(conn, message)
        except (OSError, ProtocolViolation) as failure:
            error = failure
        except asyncio.CancelledError:
            error = ConnectionLost("the client was closed")
        finally:
            self._break(conn, conn.closing or error)

    def _break(self, conn: _AsyncConnection, error: BaseException) -> None:
        if conn.broken is None:
            conn.broken = error
            conn.writer.close()
        if self._conn is conn:
            self._conn = None
        detail = f"the connection to prefsd at {self.path} ended"
        for request_id, (request, owner, _, future) in list(self._waiting.items()):
            if owner is not conn:
                continue
            del self._waiting[request_id]
            if future.done():
                continue
            closing = conn.closing
            if closing is not None and closing.code in _NOT_PERFORMED_CODES:
                future.set_exception(ConnectionLost(f"{detail} before {request.op} ({closing}); not performed", closing))
            else:
                future.set_exception(OutcomeUnknown(f"{detail} before the reply to {request.op}: {error}", closing))
        for state in conn.subscriptions.values():
            state.server_id = None
            if not self.reconnect and not state.closed:
                state.closed = True
                state.error = ConnectionLost(f"{detail}: {error}", conn.closing)
        self._notify()
        self._start_reconnecting()

    def _dispatch(self, conn: _AsyncConnection, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        waiting = self._waiting.get(request_id) if isinstance(request_id, int) else None
        try:
            parsed = protocol.read_message(message, waiting[0].op if waiting else None)
        except ProtocolViolation as error:
            self._break(conn, error)
            return
        if isinstance(parsed, Reply):
            if waiting is None:
                if parsed.id in self._abandoned:
                    self._abandoned.discard(parsed.id)
                    return
                self._break(conn, ProtocolViolation(f"prefsd answered request {parsed.id}, which is not waiting"))
                return
            del self._waiting[parsed.id]
            _, _, state, future = waiting
            if state is not None and parsed.error is None:
                server_id, values, sequences = parsed.result
                state.server_id = server_id
                conn.subscriptions[server_id] = state
                state.started(values, sequences, None)
            if not future.done():
                future.set_result(parsed)
            return
        if parsed.kind == "closing":
            conn.closing = error_from_wire(parsed.payload)
            self._break(conn, conn.closing)
            return
        state = conn.subscriptions.get(parsed.subscription)
        if state is None:
            if parsed.subscription not in conn.unsubscribing:
                self._break(conn, ProtocolViolation(f"prefsd sent an event of unknown subscription {parsed.subscription}"))
            return
        state.event(parsed.kind, parsed.payload)
        self._notify()

    # --- Requests ---------------------------------------------------------------------------------------------

    async def _perform(self, request: Request, transform: Callable[[Any], Any] = lambda result: result) -> Any:
        return transform(await self._call(request))

    async def _call(self, request: Request, state: SubscriptionState | None = None) -> Any:
        deadline = time.monotonic() + self.timeout
        loop = asyncio.get_running_loop()
        for attempt in range(2):
            try:
                conn = await asyncio.wait_for(self._ensure_open(), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                raise RequestTimeout(f"could not reach prefsd at {self.path} within {self.timeout} s") from None
            request_id = self._allocate_id()
            frame = encode_frame(request.message(request_id), conn.limits)
            future: asyncio.Future[Reply] = loop.create_future()
            self._waiting[request_id] = (request, conn, state, future)
            try:
                conn.writer.write(frame)
                await conn.writer.drain()
            except (OSError, RuntimeError) as error:
                self._waiting.pop(request_id, None)
                self._break(conn, error)
                if attempt == 0:
                    continue
                raise ConnectionLost(f"could not send {request.op} to prefsd at {self.path}: {error}") from error
            try:
                reply = await asyncio.wait_for(asyncio.shield(future), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                self._waiting.pop(request_id, None)
                self._abandoned.add(request_id)
                raise RequestTimeout(
                    f"prefsd at {self.path} did not answer {request.op} within {self.timeout} s") from None
            except ConnectionLost as error:
                if type(error) is ConnectionLost and attempt == 0:
                    continue
                raise
            if reply.error is not None:
                raise request.error(reply.error)
            return reply.result
        raise AssertionError("unreachable")

    async def update(self, domain: str, key: str, function: Callable[[Any], Any], *, attempts: int = 100,
                     by_host: bool = False, scope: str = "user") -> Any:
        """Read-modify-write one key with compare-and-set, as :meth:`prefsd.Client.update`."""
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        last: VersionConflict | None = None
        for _ in range(attempts):
            current = await self.get_versioned(domain, key, by_host=by_host, scope=scope)
            new = function(current.value)
            try:
                if new is None:
                    await self.remove(domain, key, expected_version=current.version, by_host=by_host, scope=scope)
                else:
                    await self.set(domain, key, new, expected_version=current.version, by_host=by_host, scope=scope)
                return new
            except VersionConflict as conflict:
                last = conflict
        assert last is not None
        raise last

    # --- Subscriptions ----------------------------------------------------------------------------------------

    async def subscribe(self, domain: str | None = None, *, app: str | None = None,
                        suites: list[str] | tuple[str, ...] = (), key: str | None = None,
                        key_prefix: str | None = None, by_host: bool = False,
                        scope: str = "user") -> "AsyncSubscription":
        """Start a subscription, as :meth:`prefsd.Client.subscribe`; iterate it with ``async for``."""
        request = subscribe_request(self.limits, domain, app, suites, key, key_prefix, by_host, scope)
        if len([state for state in self._active if not state.closed]) >= self.limits.maxSubscriptions:
            raise LimitExceeded(
                f"this connection already has maxSubscriptions ({self.limits.maxSubscriptions}) subscriptions",
                limit="maxSubscriptions", client_side=True, operation="subscribe", domain=request.domain)
        state = SubscriptionState(request)
        await self._call(request, state)
        self._active.append(state)
        return AsyncSubscription(self, state)

    async def _unsubscribe(self, state: SubscriptionState) -> None:
        if state.closed and state not in self._active:
            return
        state.closed = True
        if state in self._active:
            self._active.remove(state)
        self._notify()
        conn, server_id = self._conn, state.server_id
        if conn is None or server_id is None or conn.subscriptions.get(server_id) is not state:
            return
        del conn.subscriptions[server_id]
        conn.unsubscribing.add(server_id)
        try:
            await self._call(Request("unsubscribe", {"subscription": server_id}))
        except (ConnectionLost, DaemonUnavailable, RequestTimeout):
            pass

    async def _next_event(self, state: SubscriptionState, timeout: float | None) -> protocol.Event | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if state.pending and not state.closed:
                return state.take()
            if state.closed or self._closed:
                if state.error is not None:
                    raise state.error
                raise StopAsyncIteration
            if state.server_id is None:
                if not self.reconnect:
                    state.closed = True
                    state.error = ConnectionLost(f"the connection to prefsd at {self.path} ended")
                    continue
                self._start_reconnecting()
            signal = self._signal
            if deadline is None:
                await signal.wait()
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                try:
                    await asyncio.wait_for(signal.wait(), remaining)
                except asyncio.TimeoutError:
                    return None

    async def close(self) -> None:
        """Close the connection; subscriptions end, and waiting calls fail."""
        self._closed = True
        for state in self._active:
            state.closed = True
        self._active.clear()
        for task in (self._reconnector, self._opening):
            if task is not None and not task.done():
                task.cancel()
        conn = self._conn
        if conn is not None:
            self._break(conn, ConnectionLost("the client was closed"))
            if conn.task is not None:
                conn.task.cancel()
                try:
                    await conn.task
                except (asyncio.CancelledError, Exception):
                    pass
            try:
                await conn.writer.wait_closed()
            except (OSError, asyncio.CancelledError):
                pass
        self._notify()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


class AsyncSubscription:
    """A subscription of an :class:`AsyncClient`: ``async for event in subscription`` gives a
    :class:`~prefsd.protocol.Snapshot` first, then :class:`~prefsd.protocol.Change`,
    :class:`~prefsd.protocol.Batch` and :class:`~prefsd.protocol.Resync` events, as :class:`prefsd.Subscription`.
    """

    def __init__(self, client: AsyncClient, state: SubscriptionState) -> None:
        self._client = client
        self._state = state

    @property
    def values(self) -> dict[str, Any]:
        """The watched values, as of the last event taken."""
        return self._state.values

    @property
    def sequences(self) -> dict[protocol.Domain, int]:
        """The latest sequence number seen of each domain the values come from."""
        return self._state.sequences

    def __aiter__(self) -> AsyncIterator[protocol.Event]:
        return self

    async def __anext__(self) -> protocol.Event:
        event = await self._client._next_event(self._state, None)
        assert event is not None
        return event

    async def next_event(self, timeout: float | None = None) -> protocol.Event | None:
        """The next event, waiting at most ``timeout`` seconds; ``None`` on timeout.

        :raises StopAsyncIteration: after :meth:`close`.
        """
        return await self._client._next_event(self._state, timeout)

    async def close(self) -> None:
        """End the subscription (``unsubscribe``)."""
        await self._client._unsubscribe(self._state)

    async def __aenter__(self) -> "AsyncSubscription":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
