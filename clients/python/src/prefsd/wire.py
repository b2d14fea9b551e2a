# SPDX-License-Identifier: Apache-2.0
"""Framing, limits and property-list values of the prefsd protocol (docs/PROTOCOL.md, "Framing" and "Limits").

This module does no I/O: :func:`encode_frame` turns a message into the bytes of a frame, :class:`FrameDecoder`
turns bytes received, in chunks of any size, back into messages. Both enforce the limits the daemon announces
in its ``hello`` reply (:class:`Limits`), so that an oversized frame or value is refused before it is sent and
a malformed or oversized frame from the daemon is reported clearly instead of being half-read.
"""

from __future__ import annotations

import datetime as _dt
import math
import plistlib
import struct
from dataclasses import dataclass, fields
from typing import Any

from .errors import InvalidValue, LimitExceeded, ProtocolViolation

__all__ = [
    "PROTOCOL_VERSION",
    "Limits",
    "encode_frame",
    "FrameDecoder",
    "to_wire_value",
    "from_wire_value",
    "value_depth",
]

#: The protocol version this package speaks (docs/PROTOCOL.md is version 1).
PROTOCOL_VERSION = 1

#: A frame may nest this many levels more than a stored value, for the message around the value.
ENVELOPE_DEPTH = 3

_HEADER = struct.Struct(">I")
_BINARY_MAGIC = b"bplist00"
_MIN_INT = -(1 << 63)
_MAX_INT = (1 << 64) - 1
_UTC = _dt.timezone.utc


@dataclass(frozen=True)
class Limits:
    """The daemon's limits, by their protocol names (docs/PROTOCOL.md, "Limits").

    The defaults are the protocol's; :meth:`from_hello` takes the values a daemon reported, keeps the default
    for a limit it did not report, and ignores names this client does not know (the set is open).
    """

    maxFrameBytes: int = 16 << 20
    maxFrameObjects: int = 1 << 20
    maxDepth: int = 64
    maxDomainBytes: int = 4 << 20
    maxKeyBytes: int = 1024
    maxConnections: int = 256
    maxSubscriptions: int = 256
    subscriptionQueueLength: int = 1024
    maxSuites: int = 64
    maxBufferedFrameBytes: int = 64 << 20

    @classmethod
    def from_hello(cls, limits: dict[str, Any]) -> "Limits":
        """The limits of a ``hello`` reply's ``limits`` dictionary (each a positive integer)."""
        known = {field.name for field in fields(cls)}
        values = {}
        for name, value in limits.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ProtocolViolation(f"hello reply: limits.{name} must be a positive integer (got {value!r})")
            if name in known:
                values[name] = value
        return cls(**values)


def value_depth(value: Any) -> int:
    """The nesting depth of a value as the protocol counts it: a scalar is 0, a container 1 + its deepest element."""
    if isinstance(value, dict):
        return 1 + max((value_depth(element) for element in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((value_depth(element) for element in value), default=0)
    return 0


def to_wire_value(value: Any, path: str = "value", max_depth: int | None = None) -> Any:
    """Check that ``value`` can travel as a property list and return it in the form plistlib writes.

    Accepted: ``str``, ``int`` (−2⁶³…2⁶⁴−1), ``bool``, finite ``float``, ``datetime.datetime`` (a naive one is
    taken as UTC, as plistlib does; an aware one is converted to UTC), ``bytes``/``bytearray``/``memoryview``,
    ``list``/``tuple``, ``dict`` with ``str`` keys, and ``plistlib.UID``.

    :param path: Where the value sits, for error messages (``value``, ``values["Key"][2]``).
    :param max_depth: Refuse values nested deeper than this (the daemon's ``maxDepth``).
    :raises InvalidValue: naming where the value breaks the rules.
    :raises LimitExceeded: (client side) when the value is nested deeper than ``max_depth``.
    """
    depth_limit = max_depth if max_depth is not None else -1

    def convert(item: Any, where: str, depth: int) -> Any:
        if isinstance(item, bool) or isinstance(item, str) or isinstance(item, plistlib.UID):
            return item
        if isinstance(item, int):
            if not _MIN_INT <= item <= _MAX_INT:
                raise InvalidValue(f"{where}: the integer {item} does not fit in 64 bits")
            return item
        if isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidValue(f"{where}: {item} is not a finite real; property lists hold finite reals only")
            return item
        if isinstance(item, _dt.datetime):
            if item.tzinfo is not None:
                item = item.astimezone(_UTC).replace(tzinfo=None)
            return item
        if isinstance(item, (bytes, bytearray, memoryview)):
            return bytes(item)
        if isinstance(item, (list, tuple, dict)):
            if depth_limit >= 0 and depth + 1 > depth_limit:
                raise LimitExceeded(
                    f"{where} nests containers more than {depth_limit} deep (maxDepth = {depth_limit})",
                    limit="maxDepth",
                    client_side=True,
                )
            if isinstance(item, dict):
                result = {}
                for key, element in item.items():
                    if not isinstance(key, str):
                        raise InvalidValue(f"{where}: dictionary key {key!r} is a {type(key).__name__}, not a string")
                    result[key] = convert(element, f"{where}[{key!r}]", depth + 1)
                return result
            return [convert(element, f"{where}[{index}]", depth + 1) for index, element in enumerate(item)]
        if isinstance(item, _dt.date):
            raise InvalidValue(f"{where}: a datetime.date has no time; pass a datetime.datetime")
        raise InvalidValue(f"{where}: a {type(item).__name__} cannot be stored in a property list")

    return convert(value, path, 0)


def from_wire_value(value: Any) -> Any:
    """A value as read by plistlib, with its dates made timezone-aware (UTC); everything else is unchanged."""
    if isinstance(value, _dt.datetime):
        return value.replace(tzinfo=_UTC) if value.tzinfo is None else value
    if isinstance(value, dict):
        return {key: from_wire_value(element) for key, element in value.items()}
    if isinstance(value, list):
        return [from_wire_value(element) for element in value]
    return value


def _count_objects(value: Any, budget: int) -> int:
    """Objects in ``value`` counting every reference, stopping once ``budget`` is exceeded (returns > budget)."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > budget:
            return count
        if isinstance(item, dict):
            count += len(item)  # the keys are objects too
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def encode_frame(message: dict[str, Any], limits: Limits = Limits()) -> bytes:
    """The frame of one message: a 4-byte big-endian length and a binary property list of the dictionary.

    The message's values must already be in wire form (:func:`to_wire_value`).

    :raises LimitExceeded: (client side) when the payload is larger than ``maxFrameBytes``, holds more than
        ``maxFrameObjects`` objects, or nests deeper than ``maxDepth`` + 3.
    """
    if not isinstance(message, dict) or not message:
        raise InvalidValue("a message must be a non-empty dictionary")
    depth_limit = limits.maxDepth + ENVELOPE_DEPTH
    if value_depth(message) > depth_limit:
        raise LimitExceeded(
            f"the message nests deeper than maxDepth ({limits.maxDepth}) plus {ENVELOPE_DEPTH} levels of message",
            limit="maxDepth",
            client_side=True,
        )
    objects = _count_objects(message, limits.maxFrameObjects)
    if objects > limits.maxFrameObjects:
        raise LimitExceeded(
            f"the message holds more than {limits.maxFrameObjects} property-list objects "
            f"(maxFrameObjects = {limits.maxFrameObjects})",
            limit="maxFrameObjects",
            client_side=True,
        )
    try:
        payload = plistlib.dumps(message, fmt=plistlib.FMT_BINARY, sort_keys=False)
    except (TypeError, OverflowError, ValueError) as error:
        raise InvalidValue(f"the message cannot be written as a binary property list: {error}") from error
    if len(payload) > limits.maxFrameBytes:
        raise LimitExceeded(
            f"a frame of {len(payload)} bytes exceeds maxFrameBytes ({limits.maxFrameBytes})",
            limit="maxFrameBytes",
            client_side=True,
        )
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Reassembles frames from bytes received in chunks of any size.

    :meth:`feed` appends bytes; :meth:`next_message` returns the next whole message (a ``dict``), or ``None``
    until one is complete. A length of 0 or above ``maxFrameBytes`` is refused as soon as its four bytes are
    there, before any payload is buffered; a payload that is not a binary property list dictionary, nests too
    deep or holds too many objects is refused too. A refusal raises :class:`ProtocolViolation` and the decoder
    stays failed. Call :meth:`finish` at end of stream: bytes of an incomplete frame are an error.
    """

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self._buffer = bytearray()
        self._failure: ProtocolViolation | None = None

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as a message."""
        return len(self._buffer)

    def feed(self, data: bytes) -> None:
        """Append bytes received from the stream."""
        self._buffer += data

    def _fail(self, message: str) -> ProtocolViolation:
        self._failure = ProtocolViolation(message)
        self._buffer.clear()
        return self._failure

    def next_message(self) -> dict[str, Any] | None:
        """The next complete message, or ``None`` when more bytes are needed.

        :raises ProtocolViolation: on a malformed or oversized frame (and on every call after one).
        """
        if self._failure is not None:
            raise self._failure
        if len(self._buffer) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(self._buffer)
        if length == 0:
            raise self._fail("malformed frame from prefsd: a frame of length 0")
        if length > self.limits.maxFrameBytes:
            raise self._fail(
                f"frame from prefsd of {length} bytes exceeds maxFrameBytes ({self.limits.maxFrameBytes})"
            )
        if len(self._buffer) < _HEADER.size + length:
            return None
        payload = bytes(self._buffer[_HEADER.size : _HEADER.size + length])
        del self._buffer[: _HEADER.size + length]
        return self._decode(payload)

    def _decode(self, payload: bytes) -> dict[str, Any]:
        if not payload.startswith(_BINARY_MAGIC):
            raise self._fail(
                f"malformed frame from prefsd: the payload is not a binary property list "
                f"(it starts with {payload[:8]!r})"
            )
        try:
            message = plistlib.loads(payload, fmt=plistlib.FMT_BINARY)
        except RecursionError:
            raise self._fail("malformed frame from prefsd: the property list nests too deep to read") from None
        except Exception as error:  # plistlib raises InvalidFileException, ValueError, IndexError, struct.error…
            raise self._fail(f"malformed frame from prefsd: {type(error).__name__}: {error}") from error
        if not isinstance(message, dict):
            raise self._fail(
                f"malformed frame from prefsd: the top-level object is a {type(message).__name__}, not a dictionary"
            )
        if any(not isinstance(key, str) for key in message):
            raise self._fail("malformed frame from prefsd: a top-level key is not a string")
        depth_limit = self.limits.maxDepth + ENVELOPE_DEPTH
        if value_depth(message) > depth_limit:
            raise self._fail(f"frame from prefsd nests deeper than maxDepth ({self.limits.maxDepth}) + {ENVELOPE_DEPTH}")
        if _count_objects(message, self.limits.maxFrameObjects) > self.limits.maxFrameObjects:
            raise self._fail(f"frame from prefsd holds more than maxFrameObjects ({self.limits.maxFrameObjects}) objects")
        return message

    def finish(self) -> None:
        """Declare the end of the stream.

        :raises ProtocolViolation: when the stream ended in the middle of a frame.
        """
        if self._failure is not None:
            raise self._failure
        if self._buffer:
            raise self._fail(f"prefsd's stream ended in the middle of a frame ({len(self._buffer)} bytes unread)")
