# SPDX-License-Identifier: Apache-2.0
"""The blocking client: one connection to prefsd, shared by requests and subscriptions, safe to use from
several threads.

Requests carry increasing ``id``s; whichever thread is waiting reads the connection and hands every message
to its owner: a reply to the request with its ``id``, an event to its subscription's queue. So replies are
matched to requests while events arrive in between, and a thread iterating a subscription and threads making
requests share the connection without a reader thread of the client's own.

When the connection is lost (prefsd stopped or restarted), the next request connects again, and a
subscription being iterated reconnects with a growing delay, subscribes again and delivers a
:class:`~prefsd.protocol.Resync` with ``reason="reconnect"`` and the new snapshot.
"""

from __future__ import annotations

import select
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from . import protocol
from ._operations import Operations
from ._subscription import SubscriptionState, subscribe_request
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

__all__ = ["Client", "Subscription", "CLIENT_NAME"]

#: The name the client gives in ``hello``, for prefsd's log.
CLIENT_NAME = "prefsd-python/1.0"

#: ``closing`` codes after which a request without a reply was not performed (prefsd drains a connection by
#: finishing the request in progress, whose reply it sends, and starting no other).
_NOT_PERFORMED_CODES = {"shuttingDown", "timedOut", "limitExceeded"}
_READ_SIZE = 1 << 16


class _Connection:
    """One socket after a successful ``hello``, with its frame decoder and what ended it."""

    def __init__(self, sock: socket.socket, decoder: FrameDecoder, version: int, server: str, limits: Limits):
        self.sock = sock
        self.decoder = decoder
        self.version = version
        self.server = server
        self.limits = limits
        self.broken: BaseException | None = None
        self.closing: ServerError | None = None
        self.subscriptions: dict[int, SubscriptionState] = {}
        self.unsubscribing: set[int] = set()


def _connect_socket(path: str, timeout: float) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except (FileNotFoundError, ConnectionRefusedError, socket.timeout) as error:
        sock.close()
        raise DaemonUnavailable(f"no prefsd answers at {path}: {error.strerror or error}") from error
    except OSError as error:
        sock.close()
        raise DaemonUnavailable(f"cannot connect to prefsd at {path}: {error.strerror or error}") from error
    return sock


def _read_messages(sock: socket.socket, decoder: FrameDecoder, timeout: float | None) -> list[dict[str, Any]] | None:
    """Wait up to ``timeout`` for bytes, read what is there and return the whole messages it completes (maybe
    none). ``None`` means end of stream. Raises ``OSError`` or ``ProtocolViolation``."""
    message = decoder.next_message()
    if message is not None:
        return [message]
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    if not poller.poll(None if timeout is None else max(0, int(timeout * 1000))):
        return []
    data = sock.recv(_READ_SIZE)
    if not data:
        decoder.finish()
        return None
    decoder.feed(data)
    messages = []
    while (message := decoder.next_message()) is not None:
        messages.append(message)
    return messages


class Client(Operations):
    """A connection to prefsd.

    Connects and negotiates the protocol version at once (``hello``); the daemon's limits are then in
    :attr:`limits` and enforced before anything is sent. Every operation of docs/PROTOCOL.md is a method
    (:meth:`get`, :meth:`set`, :meth:`set_many`, :meth:`remove`, :meth:`read_domain`, :meth:`write_domain`,
    :meth:`remove_domain`, :meth:`list_domains`, :meth:`synchronize`, :meth:`get_effective`, :meth:`subscribe`),
    and :meth:`update` is a compare-and-set loop. Refusals raise the :class:`~prefsd.errors.ServerError`
    subclass of their code. Use it as a context manager, or call :meth:`close`.

    :param path: The socket (default: :func:`~prefsd.paths.socket_path`, the daemon's own rule).
    :param timeout: Seconds to wait for a connection or a reply before :class:`~prefsd.errors.RequestTimeout`.
    :param reconnect: Whether subscriptions reconnect after the connection is lost (default true).
    :param max_reconnect_delay: The longest wait between two reconnection attempts; waits start at 50 ms and
        double up to it.
    :param name: The client name ``hello`` gives, for prefsd's log.
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        timeout: float = 30.0,
        reconnect: bool = True,
        max_reconnect_delay: float = 2.0,
        name: str = CLIENT_NAME,
    ) -> None:
        self.path = path if path is not None else socket_path()
        self.timeout = timeout
        self.reconnect = reconnect
        self.max_reconnect_delay = max_reconnect_delay
        self.name = name
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._conn: _Connection | None = None
        self._last: _Connection | None = None
        self._connecting = False
        self._reading = False
        self._closed = False
        self._next_id = 1
        self._waiting: dict[int, tuple[Request, _Connection, SubscriptionState | None]] = {}
        self._replies: dict[int, Reply] = {}
        self._abandoned: set[int] = set()
        self._active: list[SubscriptionState] = []
        self._retry_delay = 0.05
        self._next_attempt = 0.0
        self._last_failure: BaseException | None = None
        conn = self._open()
        with self._cond:
            self._publish(conn)

    # --- Properties -------------------------------------------------------------------------------------------

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

    @property
    def connected(self) -> bool:
        """Whether the client holds a working connection now."""
        return self._conn is not None and self._conn.broken is None

    # --- Connecting -------------------------------------------------------------------------------------------

    def _allocate_id(self) -> int:
        with self._cond:
            request_id = self._next_id
            self._next_id += 1
            return request_id

    def _open(self) -> _Connection:
        """Connect, say hello and subscribe again every active subscription; the caller publishes the result."""
        deadline = time.monotonic() + self.timeout
        sock = _connect_socket(self.path, self.timeout)
        decoder = FrameDecoder(Limits())
        try:
            hello_id = self._allocate_id()
            sock.sendall(encode_frame(
                {"id": hello_id, "op": "hello", "version": PROTOCOL_VERSION, "client": self.name}))
            reply = self._read_handshake_reply(sock, decoder, hello_id, "hello", deadline)
            if reply.error is not None:
                raise error_from_wire(reply.error, operation="hello")
            version, server, limits = reply.result
            if version != PROTOCOL_VERSION:
                raise ProtocolViolation(f"prefsd chose protocol version {version}, outside the range offered (1...1)")
            decoder.limits = limits
            conn = _Connection(sock, decoder, version, server, limits)
            with self._cond:
                states = [state for state in self._active if not state.closed]
            self._resubscribe(conn, states, deadline)
            return conn
        except OSError as error:
            sock.close()
            raise DaemonUnavailable(f"prefsd at {self.path} closed the connection during hello: {error}") from error
        except BaseException:
            sock.close()
            raise

    def _read_handshake_reply(
        self, sock: socket.socket, decoder: FrameDecoder, request_id: int, op: str, deadline: float
    ) -> Reply:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RequestTimeout(f"prefsd at {self.path} did not answer {op} within {self.timeout} s")
            messages = _read_messages(sock, decoder, remaining)
            if messages is None:
                raise DaemonUnavailable(f"prefsd at {self.path} closed the connection before answering {op}")
            for message in messages:
                parsed = protocol.read_message(message, op)
                if isinstance(parsed, EventMessage):
                    if parsed.kind == "closing":
                        raise error_from_wire(parsed.payload, operation=op)
                    raise ProtocolViolation(f"prefsd sent a {parsed.kind} event before answering {op}")
                if parsed.id != request_id:
                    raise ProtocolViolation(f"prefsd answered request {parsed.id} while {request_id} ({op}) waited")
                return parsed

    def _resubscribe(self, conn: _Connection, states: list[SubscriptionState], deadline: float) -> None:
        """Send ``subscribe`` for every state at once, then read the replies; events of subscriptions already
        answered may come in between and are queued."""
        if not states:
            return
        ids = {}
        frames = []
        for state in states:
            request_id = self._allocate_id()
            ids[request_id] = state
            frames.append(encode_frame(state.request.message(request_id), conn.limits))
        conn.sock.sendall(b"".join(frames))
        waiting = dict(ids)
        while waiting:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RequestTimeout(f"prefsd at {self.path} did not answer subscribe within {self.timeout} s")
            messages = _read_messages(conn.sock, conn.decoder, remaining)
            if messages is None:
                raise DaemonUnavailable(f"prefsd at {self.path} closed the connection while subscribing again")
            with self._cond:
                for message in messages:
                    request_id = message.get("id")
                    parsed = protocol.read_message(message, "subscribe" if request_id in waiting else None)
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
                self._cond.notify_all()

    def _publish(self, conn: _Connection) -> None:
        """Make ``conn`` the client's connection (the caller holds the lock)."""
        if self._closed:
            conn.sock.close()
            raise PrefsdError("the client is closed")
        self._conn = conn
        self._last = conn
        self._retry_delay = 0.05
        self._next_attempt = 0.0
        self._last_failure = None
        for state in self._active:
            if state.server_id is not None and conn.subscriptions.get(state.server_id) is not state:
                state.server_id = None
        self._cond.notify_all()

    def _break(self, conn: _Connection, error: BaseException) -> None:
        """Mark ``conn`` as ended (the caller holds the lock): waiters find out, subscriptions need renewing."""
        if conn.broken is None:
            conn.broken = error
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            if not self._reading:  # a thread in poll() on it closes it when it returns, so the fd is not reused
                conn.sock.close()
        if self._conn is conn:
            self._conn = None
        for state in conn.subscriptions.values():
            if state.server_id is not None:
                state.server_id = None
            if not self.reconnect and not state.closed:
                state.closed = True
                state.error = ConnectionLost(f"the connection to prefsd at {self.path} ended: {error}", conn.closing)
        self._cond.notify_all()

    def _connection(self, deadline: float) -> _Connection:
        """A working connection, connecting once if there is none (the caller holds the lock)."""
        tried = False
        while True:
            if self._closed:
                raise PrefsdError("the client is closed")
            conn = self._conn
            if conn is not None and conn.broken is None:
                if not self._reading and not self._waiting:
                    self._poll_idle(conn)
                    if conn.broken is not None:
                        continue
                return conn
            if self._connecting:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RequestTimeout(f"could not reconnect to prefsd at {self.path} within {self.timeout} s")
                self._cond.wait(remaining)
                continue
            if tried:
                raise self._last_failure or DaemonUnavailable(f"no prefsd answers at {self.path}")
            tried = True
            self._attempt_connect()

    def _attempt_connect(self) -> bool:
        """Try once to connect (the caller holds the lock, released meanwhile); ``True`` on success."""
        self._connecting = True
        self._cond.release()
        conn: _Connection | None = None
        failure: BaseException | None = None
        try:
            conn = self._open()
        except (PrefsdError, OSError) as error:
            failure = error
        finally:
            self._cond.acquire()
            self._connecting = False
            self._cond.notify_all()
        if conn is not None:
            self._publish(conn)
            return True
        self._last_failure = failure
        self._next_attempt = time.monotonic() + self._retry_delay
        self._retry_delay = min(self._retry_delay * 2, self.max_reconnect_delay)
        return False

    def _poll_idle(self, conn: _Connection) -> None:
        """Before using an idle connection, take what prefsd sent meanwhile (a ``closing`` after an idle timeout,
        or events), so that a request is not sent on a connection that has ended."""
        try:
            messages = _read_messages(conn.sock, conn.decoder, 0)
        except (OSError, ProtocolViolation) as error:
            self._break(conn, error)
            return
        if messages is None:
            self._break(conn, ConnectionLost(f"prefsd at {self.path} closed the connection", conn.closing))
            return
        for message in messages:
            self._dispatch(conn, message)

    # --- Reading and dispatching ------------------------------------------------------------------------------

    def _read_once(self, conn: _Connection, timeout: float | None) -> None:
        """Read from ``conn`` as the one reading thread (the caller holds the lock, released while waiting)."""
        self._reading = True
        self._cond.release()
        try:
            try:
                messages: list[dict[str, Any]] | None | BaseException = _read_messages(conn.sock, conn.decoder, timeout)
            except (OSError, ValueError, ProtocolViolation) as error:  # ValueError: the socket was closed meanwhile
                messages = error
        finally:
            self._cond.acquire()
            self._reading = False
            self._cond.notify_all()
        if conn.broken is not None:
            conn.sock.close()
            return
        if isinstance(messages, BaseException):
            self._break(conn, messages)
        elif messages is None:
            self._break(conn, ConnectionLost(f"prefsd at {self.path} closed the connection", conn.closing))
        else:
            for message in messages:
                self._dispatch(conn, message)
                if conn.broken is not None:
                    break

    def _dispatch(self, conn: _Connection, message: dict[str, Any]) -> None:
        """Hand one message to its owner (the caller holds the lock)."""
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
            request, _, state = waiting
            if state is not None and parsed.error is None:
                server_id, values, sequences = parsed.result
                state.server_id = server_id
                conn.subscriptions[server_id] = state
                state.started(values, sequences, None)
            self._replies[parsed.id] = parsed
            self._cond.notify_all()
            return
        if parsed.kind == "closing":
            closing = error_from_wire(parsed.payload)
            conn.closing = closing
            self._break(conn, closing)
            return
        state = conn.subscriptions.get(parsed.subscription)
        if state is None:
            if parsed.subscription in conn.unsubscribing:
                return
            self._break(conn, ProtocolViolation(f"prefsd sent an event of unknown subscription {parsed.subscription}"))
            return
        state.event(parsed.kind, parsed.payload)
        self._cond.notify_all()

    # --- Requests ---------------------------------------------------------------------------------------------

    def _perform(self, request: Request, transform: Callable[[Any], Any] = lambda result: result) -> Any:
        return transform(self._call(request))

    def _call(self, request: Request, state: SubscriptionState | None = None) -> Any:
        """Send one request and wait for its reply; return the result or raise the daemon's error.

        A request that did not go out whole, or that prefsd said it did not perform, is sent once more on a new
        connection: it was not applied.
        """
        deadline = time.monotonic() + self.timeout
        for attempt in range(2):
            with self._cond:
                conn = self._connection(deadline)
                request_id = self._next_id
                self._next_id += 1
                frame = encode_frame(request.message(request_id), conn.limits)
                self._waiting[request_id] = (request, conn, state)
            try:
                with self._send_lock:
                    conn.sock.sendall(frame)
            except (OSError, ValueError) as error:
                with self._cond:
                    self._waiting.pop(request_id, None)
                    self._break(conn, error)
                if attempt == 0:
                    continue
                raise ConnectionLost(f"could not send {request.op} to prefsd at {self.path}: {error}") from error
            try:
                reply = self._await(request_id, request, conn, deadline)
            except ConnectionLost as error:
                if type(error) is ConnectionLost and attempt == 0:
                    continue
                raise
            if reply.error is not None:
                raise request.error(reply.error)
            return reply.result
        raise AssertionError("unreachable")

    def _await(self, request_id: int, request: Request, conn: _Connection, deadline: float) -> Reply:
        with self._cond:
            while True:
                reply = self._replies.pop(request_id, None)
                if reply is not None:
                    return reply
                if conn.broken is not None:
                    self._waiting.pop(request_id, None)
                    closing = conn.closing
                    detail = f"the connection to prefsd at {self.path} ended before the reply to {request.op}"
                    if closing is not None and closing.code in _NOT_PERFORMED_CODES:
                        raise ConnectionLost(f"{detail} ({closing}); it was not performed", closing)
                    raise OutcomeUnknown(f"{detail}: {conn.broken}", closing) from (
                        conn.broken if isinstance(conn.broken, Exception) else None)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._waiting.pop(request_id, None)
                    self._abandoned.add(request_id)
                    raise RequestTimeout(f"prefsd at {self.path} did not answer {request.op} within {self.timeout} s")
                if self._reading:
                    self._cond.wait(remaining)
                else:
                    self._read_once(conn, remaining)

    def update(
        self,
        domain: str,
        key: str,
        function: Callable[[Any], Any],
        *,
        attempts: int = 100,
        by_host: bool = False,
        scope: str = "user",
    ) -> Any:
        """Read-modify-write one key with compare-and-set: ``function(old)`` (``old`` is ``None`` when absent)
        returns the new value (``None`` removes the key); on a conflict the read and ``function`` run again.
        Returns the value written. No update is ever lost to a concurrent writer.

        :raises ~prefsd.errors.VersionConflict: after ``attempts`` conflicts in a row.
        """
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        last: VersionConflict | None = None
        for _ in range(attempts):
            current = self.get_versioned(domain, key, by_host=by_host, scope=scope)
            new = function(current.value)
            try:
                if new is None:
                    self.remove(domain, key, expected_version=current.version, by_host=by_host, scope=scope)
                else:
                    self.set(domain, key, new, expected_version=current.version, by_host=by_host, scope=scope)
                return new
            except VersionConflict as conflict:
                last = conflict
        assert last is not None
        raise last

    # --- Subscriptions ----------------------------------------------------------------------------------------

    def subscribe(
        self,
        domain: str | None = None,
        *,
        app: str | None = None,
        suites: list[str] | tuple[str, ...] = (),
        key: str | None = None,
        key_prefix: str | None = None,
        by_host: bool = False,
        scope: str = "user",
    ) -> "Subscription":
        """Watch one domain, or (``app=``, ``suites=``) an application's effective values; all keys, one
        ``key``, or the keys starting with ``key_prefix``.

        Returns a :class:`Subscription`: iterate it for a :class:`~prefsd.protocol.Snapshot` first and then
        every change (:class:`~prefsd.protocol.Change`, :class:`~prefsd.protocol.Batch`) and
        :class:`~prefsd.protocol.Resync`. It shares this client's connection.
        """
        request = subscribe_request(self.limits, domain, app, suites, key, key_prefix, by_host, scope)
        state = SubscriptionState(request)
        with self._cond:
            if len([s for s in self._active if not s.closed]) >= self.limits.maxSubscriptions:
                raise LimitExceeded(
                    f"this connection already has maxSubscriptions ({self.limits.maxSubscriptions}) subscriptions",
                    limit="maxSubscriptions", client_side=True, operation="subscribe", domain=request.domain)
        self._call(request, state)
        with self._cond:
            self._active.append(state)
        return Subscription(self, state)

    def _unsubscribe(self, state: SubscriptionState) -> None:
        with self._cond:
            if state.closed and state not in self._active:
                return
            state.closed = True
            if state in self._active:
                self._active.remove(state)
            conn, server_id = self._conn, state.server_id
            if conn is None or server_id is None or conn.subscriptions.get(server_id) is not state:
                self._cond.notify_all()
                return
            del conn.subscriptions[server_id]
            conn.unsubscribing.add(server_id)
            self._cond.notify_all()
        try:
            self._call(Request("unsubscribe", {"subscription": server_id}))
        except (ConnectionLost, DaemonUnavailable, RequestTimeout):
            pass  # the connection ended, and the subscription with it

    def _next_event(self, state: SubscriptionState, timeout: float | None) -> protocol.Event | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if state.pending and not state.closed:
                    return state.take()
                if state.closed or self._closed:
                    if state.error is not None:
                        raise state.error
                    raise StopIteration
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                conn = self._conn
                if conn is None or conn.broken is not None or state.server_id is None:
                    if self._connecting or self._reading:
                        self._cond.wait(remaining)
                        continue
                    if not self.reconnect:
                        state.closed = True
                        state.error = ConnectionLost(f"the connection to prefsd at {self.path} ended")
                        continue
                    wait = self._next_attempt - time.monotonic()
                    if wait > 0:
                        self._cond.wait(wait if remaining is None else min(wait, remaining))
                        continue
                    if conn is not None and conn.broken is None:
                        # Connected, but this subscription is not on the connection: subscribe it again.
                        self._break(conn, ConnectionLost("subscribing again"))
                    self._attempt_connect()
                    continue
                if self._reading:
                    self._cond.wait(remaining)
                else:
                    self._read_once(conn, remaining)

    # --- Closing ----------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection; subscriptions end, and waiting calls fail."""
        with self._cond:
            self._closed = True
            for state in self._active:
                state.closed = True
            self._active.clear()
            if self._conn is not None:
                self._break(self._conn, ConnectionLost("the client was closed"))
            self._cond.notify_all()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class Subscription:
    """A subscription of a :class:`Client`: an iterator of events, blocking until the next one arrives.

    The first event is a :class:`~prefsd.protocol.Snapshot`; then come :class:`~prefsd.protocol.Change` and
    :class:`~prefsd.protocol.Batch` events with their sequence numbers, and :class:`~prefsd.protocol.Resync`
    when everything must be replaced (prefsd's queue overflowed, or the client reconnected after a restart of
    prefsd). :attr:`values` holds the watched values with every event taken so far applied. Iteration ends
    after :meth:`close`; it raises the error that ended the subscription otherwise.
    """

    def __init__(self, client: Client, state: SubscriptionState) -> None:
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

    def __iter__(self) -> Iterator[protocol.Event]:
        return self

    def __next__(self) -> protocol.Event:
        event = self._client._next_event(self._state, None)
        assert event is not None
        return event

    def next_event(self, timeout: float | None = None) -> protocol.Event | None:
        """The next event, waiting at most ``timeout`` seconds (``None``: no limit); ``None`` on timeout.

        :raises StopIteration: after :meth:`close`.
        """
        return self._client._next_event(self._state, timeout)

    def close(self) -> None:
        """End the subscription (``unsubscribe``); no event of it follows."""
        self._client._unsubscribe(self._state)

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
