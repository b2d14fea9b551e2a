# SPDX-License-Identifier: Apache-2.0
"""The exceptions of the prefsd client.

Every exception the package raises on purpose derives from :class:`PrefsdError`. Errors the daemon reports
derive from :class:`ServerError`, one class per protocol error code (docs/PROTOCOL.md, "Errors"); the
client's own failures (no daemon, a lost connection, a malformed frame from the daemon, a value or frame
beyond a limit, a timeout) have classes of their own.
"""

from __future__ import annotations

from typing import Any

__all__ = [
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
    "error_from_wire",
]


class PrefsdError(Exception):
    """The base class of every error of this package."""


class ServerError(PrefsdError):
    """An error the daemon reported: in the reply to a request, or in the ``closing`` event that ended a connection.

    :ivar code: The protocol's stable error code, such as ``"versionConflict"`` (kept as sent, even when this
        client does not know it; such codes are raised as :class:`InternalError`).
    :ivar message: The daemon's sentence for people, naming the domain, key, field, file or limit concerned.
    :ivar field: ``badRequest``: the path of the request field at fault.
    :ivar limit: ``limitExceeded``: the name of the limit, as in the ``hello`` reply.
    :ivar current_version: ``versionConflict``: the domain's version now.
    :ivar path: ``readOnly``, ``storeUnavailable``, ``permissionDenied``: the file concerned.
    :ivar operation: The request's operation (``"set"``), when the error answers a request.
    :ivar domain: The domain (or application, for a search list) the request named, when it named one.
    :ivar key: The key the request named, when it named one.
    """

    code: str = ""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        field: str | None = None,
        limit: str | None = None,
        current_version: int | None = None,
        path: str | None = None,
        operation: str | None = None,
        domain: str | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.field = field
        self.limit = limit
        self.current_version = current_version
        self.path = path
        self.operation = operation
        self.domain = domain
        self.key = key

    def __str__(self) -> str:
        context = []
        if self.operation:
            context.append(self.operation)
        if self.domain is not None:
            context.append(f"domain {self.domain}")
        if self.key is not None:
            context.append(f"key {self.key}")
        prefix = f"{self.code}"
        if context:
            prefix += f" ({', '.join(context)})"
        return f"{prefix}: {self.message}"


class BadRequest(ServerError):
    """A request field is missing, mistyped, out of range or not part of the operation (``field`` names it)."""

    code = "badRequest"


class UnknownOperation(ServerError):
    """The operation is not part of the negotiated protocol version."""

    code = "unknownOperation"


class UnsupportedVersion(ServerError):
    """``hello``: the daemon speaks no protocol version in the client's range."""

    code = "unsupportedVersion"


class NotFound(ServerError):
    """``readDomain``/``removeDomain``: the domain does not exist; ``unsubscribe``: no such subscription."""

    code = "notFound"


class InvalidName(ServerError):
    """A domain name breaks the naming rules; the message names the rule broken."""

    code = "invalidName"


class LimitExceeded(ServerError):
    """A request, value, frame or connection exceeds a limit; ``limit`` names it.

    Raised for the daemon's refusals and also by the client itself, before anything is sent, when a value or
    frame would break a limit the daemon announced in ``hello`` (then ``client_side`` is true and the
    connection is unaffected).
    """

    code = "limitExceeded"

    def __init__(self, message: str, *, client_side: bool = False, **fields: Any) -> None:
        super().__init__(message, **fields)
        self.client_side = client_side


class PermissionDenied(ServerError):
    """The daemon does not serve this user, or the file system refused access (``path``)."""

    code = "permissionDenied"


class ReadOnly(ServerError):
    """A write to the ``system`` or ``forced`` layer; ``path`` names the file."""

    code = "readOnly"


class VersionConflict(ServerError):
    """Compare-and-set: the domain is not at ``expected_version``; ``current_version`` is its version now."""

    code = "versionConflict"


class StoreUnavailable(ServerError):
    """The daemon cannot read or write its files (disk full, I/O error); nothing was changed."""

    code = "storeUnavailable"


class CorruptDomain(ServerError):
    """``get``/``read_domain``: the domain's file is not a property-list dictionary; the message gives the reason.

    ``path`` names the file and ``current_version`` is the domain's version: a write to the domain is accepted, sets
    the file aside (``<name>.corrupt-<time>``) and starts the domain anew.
    """

    code = "corruptDomain"


class MalformedFrame(ServerError):
    """(``closing`` only) The daemon could not read this client's bytes as a frame."""

    code = "malformedFrame"


class ShuttingDown(ServerError):
    """(``closing`` only) The daemon is stopping; reconnect later."""

    code = "shuttingDown"


class TimedOut(ServerError):
    """(``closing`` only) The connection was idle too long, or a frame did not arrive whole in time."""

    code = "timedOut"


class InternalError(ServerError):
    """A bug or unexpected failure in the daemon, or an error code this client does not know."""

    code = "internal"


_CLASSES: dict[str, type[ServerError]] = {
    cls.code: cls
    for cls in (
        BadRequest,
        UnknownOperation,
        UnsupportedVersion,
        NotFound,
        InvalidName,
        LimitExceeded,
        PermissionDenied,
        ReadOnly,
        VersionConflict,
        StoreUnavailable,
        CorruptDomain,
        MalformedFrame,
        ShuttingDown,
        TimedOut,
        InternalError,
    )
}


def error_from_wire(
    error: dict[str, Any],
    *,
    operation: str | None = None,
    domain: str | None = None,
    key: str | None = None,
) -> ServerError:
    """Build the exception for an ``error`` dictionary of a reply or ``closing`` event (already validated).

    An unknown code becomes :class:`InternalError`, as the protocol asks, with ``code`` kept as sent.
    """
    code = error["code"]
    cls = _CLASSES.get(code, InternalError)
    return cls(
        error["message"],
        code=code,
        field=error.get("field"),
        limit=error.get("limit"),
        current_version=error.get("currentVersion"),
        path=error.get("path"),
        operation=operation,
        domain=domain,
        key=key,
    )


class DaemonUnavailable(PrefsdError, ConnectionError):
    """No daemon answers on the socket (not running, or the wrong path); the message names the path."""


class ConnectionLost(PrefsdError, ConnectionError):
    """The connection ended before the request's reply arrived, and the request was **not** applied.

    Either it never went out whole, or the daemon said it was shutting down before starting it. Retrying is safe.

    :ivar closing: The :class:`ServerError` of the daemon's ``closing`` event, when it sent one.
    """

    def __init__(self, message: str, closing: ServerError | None = None) -> None:
        super().__init__(message)
        self.closing = closing


class OutcomeUnknown(ConnectionLost):
    """The request went out whole, but the connection ended before its reply: the daemon may or may not have
    applied it. Writes are never retried on this error (a retried increment could count twice); read again to
    learn what happened."""


class ProtocolViolation(PrefsdError):
    """The daemon sent something this client cannot read: a malformed frame, or a message that breaks the
    protocol (a missing, mistyped or unknown field). The connection is closed."""


class InvalidValue(PrefsdError, ValueError):
    """A value cannot travel as a property list (a type plistlib cannot write, an integer beyond 64 bits, a
    non-finite real, a dictionary key that is not a string); the message names where in the value."""


class RequestTimeout(PrefsdError, TimeoutError):
    """No reply arrived within the client's timeout. The connection is closed, since a late reply could no
    longer be matched safely; a write's outcome is unknown."""
