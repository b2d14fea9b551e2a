# SPDX-License-Identifier: Apache-2.0
"""What a subscription holds, independent of how its connection is read: the request that starts it, the
events not yet taken, the sequence numbers that tell stale changes apart, and the watched values."""

from __future__ import annotations

import collections
from typing import Any

from . import protocol
from .protocol import Batch, Change, Domain, Request, Resync, Snapshot
from .wire import Limits


def subscribe_request(
    limits: Limits,
    domain: str | None,
    app: str | None,
    suites: list[str] | tuple[str, ...],
    key: str | None,
    key_prefix: str | None,
    by_host: bool,
    scope: str,
) -> Request:
    """The ``subscribe`` request for one domain (``domain``) or an application's effective values (``app``)."""
    if (domain is None) == (app is None):
        raise ValueError("subscribe needs exactly one of domain and app")
    if key is not None and key_prefix is not None:
        raise ValueError("subscribe takes at most one of key and key_prefix")
    if domain is not None:
        if suites:
            raise ValueError("suites belong to an app subscription, not a domain one")
        fields = protocol.domain_fields(domain, by_host, scope)
    else:
        if by_host or scope != "user":
            raise ValueError("by_host and scope belong to a domain subscription, not an app one")
        fields = protocol.search_list_fields(app, suites, limits)
    if key is not None:
        fields["key"] = protocol._check_string(key, "key")
    if key_prefix is not None:
        fields["keyPrefix"] = protocol._check_string(key_prefix, "key_prefix")
    return Request("subscribe", fields, domain if domain is not None else app, key)


class SubscriptionState:
    """The events of one subscription, filtered by sequence number, and the values they lead to.

    Events are queued as they are read from the connection (:meth:`started`, :meth:`event`) and taken by the
    subscriber (:meth:`take`), which applies them to :attr:`values`. A change whose sequence number is at or
    below its domain's number in the last snapshot (or the last change seen) is already included and is
    dropped, as docs/PROTOCOL.md allows.
    """

    def __init__(self, request: Request) -> None:
        self.request = request
        self.server_id: int | None = None
        self.values: dict[str, Any] = {}
        self.sequences: dict[Domain, int] = {}
        self.pending: collections.deque[protocol.Event] = collections.deque()
        self.closed = False
        self.error: BaseException | None = None
        self.dropped = 0

    def started(self, values: dict[str, Any], sequences: dict[Domain, int], reason: str | None) -> None:
        """A snapshot arrived: the ``subscribe`` reply (``reason`` None), a ``resync`` event (``"overflow"``),
        or the reply of a subscription made again after a lost connection (``"reconnect"``)."""
        self.sequences = dict(sequences)
        if reason is None:
            self.pending.append(Snapshot(values, dict(sequences)))
        else:
            self.pending.append(Resync(values, dict(sequences), reason))

    def _fresh(self, change: Change) -> bool:
        known = self.sequences.get(change.domain)
        if known is not None and change.sequence <= known:
            self.dropped += 1
            return False
        self.sequences[change.domain] = change.sequence
        return True

    def event(self, kind: str, payload: Any) -> None:
        """A ``change``, ``batch`` or ``resync`` event of this subscription arrived."""
        if kind == "resync":
            values, sequences = payload
            self.started(values, sequences, "overflow")
        elif kind == "change":
            if self._fresh(payload):
                self.pending.append(payload)
        elif kind == "batch":
            fresh = [change for change in payload.changes if self._fresh(change)]
            if fresh:
                self.pending.append(Batch(fresh, payload.origin))

    def take(self) -> protocol.Event:
        """The next event, applied to :attr:`values`."""
        event = self.pending.popleft()
        if isinstance(event, (Snapshot, Resync)):
            self.values = dict(event.values)
        else:
            for change in event.changes if isinstance(event, Batch) else (event,):
                if change.new is None:
                    self.values.pop(change.key, None)
                else:
                    self.values[change.key] = change.new
        return event
