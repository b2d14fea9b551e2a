# SPDX-License-Identifier: Apache-2.0
"""A Python client for prefsd, the Preferences daemon (docs/PROTOCOL.md of Preferences for Linux).

Pure Python (``plistlib`` and ``socket``), no dependency::

    import prefsd

    with prefsd.Client() as client:                 # $PREFSD_SOCKET, $XDG_RUNTIME_DIR/prefsd/socket, …
        client.set("com.example.Editor", "FontSize", 13)
        print(client.get("com.example.Editor", "FontSize"))
        for event in client.subscribe("com.example.Editor"):
            print(event)                             # a Snapshot, then Change / Batch / Resync events

:class:`Client` is blocking and thread-safe; :class:`AsyncClient` is its asyncio twin. Errors are
:class:`PrefsdError` subclasses: one :class:`ServerError` class per protocol error code, and the client's own.
"""

from .aio import AsyncClient, AsyncSubscription
from .client import Client, Subscription
from .errors import (
    BadRequest,
    ConnectionLost,
    CorruptDomain,
    DaemonUnavailable,
    InternalError,
    InvalidName,
    InvalidValue,
    LimitExceeded,
    MalformedFrame,
    NotFound,
    OutcomeUnknown,
    PermissionDenied,
    PrefsdError,
    ProtocolViolation,
    ReadOnly,
    RequestTimeout,
    ServerError,
    ShuttingDown,
    StoreUnavailable,
    TimedOut,
    UnknownOperation,
    UnsupportedVersion,
    VersionConflict,
)
from .paths import socket_path
from .protocol import (
    Batch,
    Change,
    Domain,
    DomainContents,
    Event,
    FleetStatus,
    Origin,
    Resolution,
    Resync,
    Snapshot,
    Source,
    Versioned,
)
from .wire import PROTOCOL_VERSION, Limits

__version__ = "1.0.0"

__all__ = [
    "AsyncClient",
    "AsyncSubscription",
    "Client",
    "Subscription",
    "socket_path",
    "PROTOCOL_VERSION",
    "Limits",
    "Batch",
    "Change",
    "Domain",
    "DomainContents",
    "Event",
    "FleetStatus",
    "Origin",
    "Resolution",
    "Resync",
    "Snapshot",
    "Source",
    "Versioned",
    "PrefsdError",
    "ServerError",
    "BadRequest",
    "UnknownOperation",
    "UnsupportedVersion",
    "NotFound",
    "InvalidName",
    "LimitExceeded",
    "PermissionDenied",
    "ReadOnly",
    "VersionConflict",
    "StoreUnavailable",
    "CorruptDomain",
    "MalformedFrame",
    "ShuttingDown",
    "TimedOut",
    "InternalError",
    "DaemonUnavailable",
    "ConnectionLost",
    "OutcomeUnknown",
    "ProtocolViolation",
    "InvalidValue",
    "RequestTimeout",
]
