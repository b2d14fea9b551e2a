# SPDX-License-Identifier: Apache-2.0
"""The messages of the prefsd protocol: requests built from Python arguments, and replies and events read
strictly (docs/PROTOCOL.md, "Messages": a missing, mistyped or unknown field is an error, on both sides).

No I/O happens here; :mod:`prefsd.client` and :mod:`prefsd.aio` move the messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import LimitExceeded, ProtocolViolation, ServerError, error_from_wire
from .wire import Limits, from_wire_value, to_wire_value

__all__ = [
    "Domain",
    "Origin",
    "Change",
    "Batch",
    "Snapshot",
    "Resync",
    "Event",
    "Source",
    "Resolution",
    "Versioned",
    "DomainContents",
    "SCOPES",
]

#: The layers a domain can be addressed in; ``system`` and ``forced`` are read-only.
SCOPES = ("user", "system", "forced", "fleetForced", "fleetDefault")
_LAYERS = (
    "forced", "fleetForced", "argument", "app", "suite", "global", "system", "fleetDefault", "registration",
)
_MAX_UINT64 = (1 << 64) - 1


class Domain(NamedTuple):
    """A domain as the protocol addresses it: its name, whether it is the by-host variant, and its layer."""

    name: str
    by_host: bool = False
    scope: str = "user"


@dataclass(frozen=True)
class Origin:
    """Who made a change: ``kind`` is ``"client"`` (a request to prefsd; ``pid``/``uid`` are the peer's) or
    ``"file"`` (found on disk: a hand edit or a program writing the files). ``pid``/``uid`` are ``None`` when
    unknown."""

    kind: str
    pid: int | None = None
    uid: int | None = None


@dataclass(frozen=True)
class Change:
    """One key's change. ``old`` is ``None`` when the key was added, ``new`` is ``None`` when it was removed.

    ``sequence`` is the domain's sequence number of this change; ``domain`` is the domain changed (for an
    effective subscription: the layer whose change moved the effective value).
    """

    domain: Domain
    key: str
    old: Any
    new: Any
    sequence: int
    origin: Origin


@dataclass(frozen=True)
class Batch:
    """The changes of one atomic operation (``setMany``, ``writeDomain``, ``removeDomain``, a re-read file),
    in one event."""

    changes: list[Change]
    origin: Origin


@dataclass(frozen=True)
class Snapshot:
    """The watched values when the subscription started, and the sequence number of each domain they came from.
    Every later change arrives as an event; none in the snapshot arrives again."""

    values: dict[str, Any]
    sequences: dict[Domain, int]


@dataclass(frozen=True)
class Resync:
    """Start again from these values: everything held for the subscription is replaced.

    ``reason`` is ``"overflow"`` when prefsd's queue for this connection overflowed (its ``resync`` event), or
    ``"reconnect"`` when the connection was lost (prefsd restarted) and the client subscribed again: changes
    made meanwhile are in ``values``, and sequence numbers start afresh with a new daemon.
    """

    values: dict[str, Any]
    sequences: dict[Domain, int]
    reason: str


#: What a subscription delivers: first a :class:`Snapshot`, then :class:`Change`, :class:`Batch` and
#: :class:`Resync` events.
Event = Snapshot | Change | Batch | Resync


@dataclass(frozen=True)
class Source:
    """Where a value comes from: its ``layer`` (``forced``, ``fleetForced``, ``app``, ``suite``, ``global``,
    ``system``, ``fleetDefault``, ``registration``), the ``domain``, whether it is by-host, the file when the layer
    has one, and for the fleet layers the etcd key and revision the value came from (docs/FLEET.md)."""

    layer: str
    domain: str
    by_host: bool = False
    path: str | None = None
    fleet_key: str | None = None
    fleet_revision: int | None = None


@dataclass(frozen=True)
class Resolution:
    """A key resolved through a search list (``getEffective``), with provenance: what ``defaults explain`` shows.

    ``value`` and ``source`` are ``None`` when no layer holds the key. ``shadowed`` lists the values lower
    layers hold, highest first, as ``(value, source)``; ``skipped`` the layers not searched, as
    ``(source, reason)``.
    """

    value: Any
    source: Source | None
    shadowed: list[tuple[Any, Source]] = field(default_factory=list)
    skipped: list[tuple[Source, str]] = field(default_factory=list)


@dataclass(frozen=True)
class FleetStatus:
    """A prefsd's state in a fleet (``fleetStatus``, docs/FLEET.md): ``state`` (``connecting``, ``connected`` or
    ``offline``), the last etcd ``revision`` written to its cache, the values from etcd it refused, its cache
    directory, and when known the etcd endpoint, the newest revision etcd reported, and the last error and its
    date."""

    state: str
    revision: int
    refused_values: int
    cache_directory: str
    endpoint: str | None = None
    latest_revision: int | None = None
    last_error: str | None = None
    last_error_date: Any = None

    @property
    def lag(self) -> int | None:
        """How many revisions etcd is ahead of the cache, or ``None`` when no newer revision was reported."""
        return None if self.latest_revision is None else max(0, self.latest_revision - self.revision)


class Versioned(NamedTuple):
    """A key's value (``None`` when absent) and its domain's version, for compare-and-set."""

    value: Any
    version: int


class DomainContents(NamedTuple):
    """Every key of a domain and the domain's version, for compare-and-set."""

    values: dict[str, Any]
    version: int


# --- Requests -------------------------------------------------------------------------------------------------


class Request:
    """A request about to be sent: its fields without ``id``, and what errors should name."""

    __slots__ = ("op", "fields", "domain", "key")

    def __init__(self, op: str, fields: dict[str, Any], domain: str | None = None, key: str | None = None):
        self.op = op
        self.fields = fields
        self.domain = domain
        self.key = key

    def message(self, request_id: int) -> dict[str, Any]:
        """The request's dictionary with its ``id``."""
        return {"id": request_id, "op": self.op, **self.fields}

    def error(self, error: dict[str, Any]) -> ServerError:
        """The exception for the daemon's refusal of this request."""
        return error_from_wire(error, operation=self.op, domain=self.domain, key=self.key)


def _check_string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    return value


def domain_fields(domain: str, by_host: bool, scope: str) -> dict[str, Any]:
    """The domain fields of a request, leaving out the defaults as the protocol asks."""
    _check_string(domain, "domain")
    if not isinstance(by_host, bool):
        raise TypeError(f"by_host must be a bool, not {type(by_host).__name__}")
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)} (got {scope!r})")
    result: dict[str, Any] = {"domain": domain}
    if by_host:
        result["byHost"] = True
    if scope != "user":
        result["scope"] = scope
    return result


def search_list_fields(app: str, suites: list[str] | tuple[str, ...], limits: Limits) -> dict[str, Any]:
    """The ``app`` and ``suites`` fields of a request, with the client-side ``maxSuites`` check."""
    _check_string(app, "app")
    suites = list(suites)
    for index, suite in enumerate(suites):
        _check_string(suite, f"suites[{index}]")
    if len(suites) > limits.maxSuites:
        raise LimitExceeded(
            f"a search list of {len(suites)} suites exceeds maxSuites ({limits.maxSuites})",
            limit="maxSuites",
            client_side=True,
            domain=app,
        )
    result: dict[str, Any] = {"app": app}
    if suites:
        result["suites"] = suites
    return result


def check_key(key: Any, limits: Limits, domain: str, what: str = "key") -> str:
    """A key to write, with the client-side ``maxKeyBytes`` check."""
    _check_string(key, what)
    size = len(key.encode("utf-8", "surrogatepass"))
    if size > limits.maxKeyBytes:
        raise LimitExceeded(
            f"{what} of {size} bytes exceeds the key length limit (maxKeyBytes = {limits.maxKeyBytes})",
            limit="maxKeyBytes",
            client_side=True,
            domain=domain,
            key=key[:64],
        )
    return key


def check_version(version: Any, what: str = "expected_version") -> int:
    """A version (or subscription identifier): an integer in 0…2⁶⁴−1."""
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= _MAX_UINT64:
        raise ValueError(f"{what} must be an integer in 0...2**64-1 (got {version!r})")
    return version


def wire_values(values: dict[str, Any], limits: Limits, domain: str) -> dict[str, Any]:
    """A dictionary of keys to write, checked and converted."""
    if not isinstance(values, dict):
        raise TypeError(f"values must be a dict, not {type(values).__name__}")
    return {
        check_key(key, limits, domain): to_wire_value(value, f"values[{key!r}]", limits.maxDepth)
        for key, value in values.items()
    }


# --- Reading replies and events strictly ----------------------------------------------------------------------


class Fields:
    """Reads the fields of one received dictionary and refuses what the protocol does not define."""

    def __init__(self, dictionary: dict[str, Any], path: str):
        self._dictionary = dictionary
        self._unread = set(dictionary)
        self._path = path

    def _where(self, name: str) -> str:
        return f"{self._path}.{name}" if self._path else name

    def _take(self, name: str, required: bool) -> Any:
        if name not in self._dictionary:
            if required:
                raise ProtocolViolation(f"message from prefsd: field `{self._where(name)}` is missing")
            return None
        self._unread.discard(name)
        return self._dictionary[name]

    def _typed(self, name: str, kind: type | tuple[type, ...], kind_name: str, required: bool) -> Any:
        value = self._take(name, required)
        if value is None:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            raise ProtocolViolation(
                f"message from prefsd: field `{self._where(name)}` must be {kind_name}, not {type(value).__name__}"
            )
        return value

    def string(self, name: str, required: bool = True) -> str | None:
        return self._typed(name, str, "a string", required)

    def boolean(self, name: str, required: bool = True) -> bool | None:
        return self._typed(name, bool, "a boolean", required)

    def dictionary(self, name: str, required: bool = True) -> dict[str, Any] | None:
        return self._typed(name, dict, "a dictionary", required)

    def array(self, name: str, required: bool = True) -> list[Any] | None:
        return self._typed(name, list, "an array", required)

    def uint64(self, name: str, required: bool = True) -> int | None:
        value = self._typed(name, int, "an integer", required)
        if value is not None and not 0 <= value <= _MAX_UINT64:
            raise ProtocolViolation(f"message from prefsd: field `{self._where(name)}` is out of 0...2**64-1")
        return value

    def value(self, name: str, required: bool = True) -> Any:
        value = self._take(name, required)
        return None if value is None else from_wire_value(value)

    def has(self, name: str) -> bool:
        """Whether the field is present."""
        return name in self._dictionary

    def sub(self, name: str) -> "Fields":
        return Fields(self.dictionary(name), self._where(name))

    def entries(self, name: str, required: bool = True) -> list["Fields"]:
        items = self.array(name, required) or []
        result = []
        for index, item in enumerate(items):
            where = f"{self._where(name)}[{index}]"
            if not isinstance(item, dict):
                raise ProtocolViolation(f"message from prefsd: `{where}` must be a dictionary")
            result.append(Fields(item, where))
        return result

    def finish(self) -> None:
        if self._unread:
            names = ", ".join(sorted(f"`{self._where(name)}`" for name in self._unread))
            raise ProtocolViolation(f"message from prefsd: unknown field {names}")


def read_domain_fields(fields: Fields) -> Domain:
    """The ``domain``, ``byHost`` and ``scope`` fields."""
    name = fields.string("domain")
    by_host = fields.boolean("byHost", required=False) or False
    scope = fields.string("scope", required=False) or "user"
    if scope not in SCOPES:
        raise ProtocolViolation(f"message from prefsd: scope {scope!r} is not one of {', '.join(SCOPES)}")
    return Domain(name, by_host, scope)


def read_error(fields: Fields) -> dict[str, Any]:
    """An ``error`` dictionary, checked."""
    error = {
        "code": fields.string("code"),
        "message": fields.string("message"),
        "field": fields.string("field", required=False),
        "limit": fields.string("limit", required=False),
        "currentVersion": fields.uint64("currentVersion", required=False),
        "path": fields.string("path", required=False),
    }
    fields.finish()
    return error


def read_snapshot(fields: Fields) -> tuple[dict[str, Any], dict[Domain, int]]:
    """The ``values`` and ``sequences`` of a ``subscribe`` reply or ``resync`` event."""
    values = fields.value("values")
    if not isinstance(values, dict):
        raise ProtocolViolation("message from prefsd: field `values` must be a dictionary")
    sequences = {}
    for entry in fields.entries("sequences"):
        domain = read_domain_fields(entry)
        sequences[domain] = entry.uint64("sequence")
        entry.finish()
    return values, sequences


def read_source(fields: Fields) -> Source:
    layer = fields.string("layer")
    if layer not in _LAYERS:
        raise ProtocolViolation(f"message from prefsd: layer {layer!r} is not a layer of the protocol")
    source = Source(
        layer, fields.string("domain"), fields.boolean("byHost", required=False) or False,
        fields.string("path", required=False), fields.string("fleetKey", required=False),
        fields.uint64("fleetRevision", required=False),
    )
    fields.finish()
    return source


def read_origin(fields: Fields) -> Origin:
    kind = fields.string("kind")
    if kind not in ("client", "file"):
        raise ProtocolViolation(f"message from prefsd: origin kind {kind!r} is neither client nor file")
    origin = Origin(kind, fields.uint64("pid", required=False), fields.uint64("uid", required=False))
    fields.finish()
    return origin


def read_change(fields: Fields, origin: Origin) -> Change:
    change = Change(
        read_domain_fields(fields), fields.string("key"), fields.value("old", required=False),
        fields.value("new", required=False), fields.uint64("sequence"), origin,
    )
    return change


def read_result(op: str, fields: Fields) -> Any:
    """The result of a successful reply to ``op``, converted to the Python form the client returns.

    ``hello`` gives ``(version, server, Limits)``; ``subscribe`` gives ``(subscription, values, sequences)``.
    """
    if op == "hello":
        version = fields.uint64("version")
        server = fields.string("server")
        limits = Limits.from_hello(fields.dictionary("limits"))
        result: Any = (version, server, limits)
    elif op == "get":
        result = Versioned(fields.value("value", required=False), fields.uint64("version"))
    elif op in ("set", "setMany", "remove", "writeDomain", "removeDomain"):
        result = fields.uint64("version")
    elif op == "readDomain":
        values = fields.value("values")
        if not isinstance(values, dict):
            raise ProtocolViolation("message from prefsd: field `values` must be a dictionary")
        result = DomainContents(values, fields.uint64("version"))
    elif op == "listDomains":
        names = fields.array("domains")
        if not all(isinstance(name, str) for name in names):
            raise ProtocolViolation("message from prefsd: `domains` must be an array of strings")
        result = names
    elif op in ("synchronize", "unsubscribe"):
        result = None
    elif op == "fleetStatus":
        # ``None``: the server is in no fleet.
        result = None
        if fields.boolean("inFleet"):
            state = fields.string("state")
            if state not in ("connecting", "connected", "offline"):
                raise ProtocolViolation(f"message from prefsd: unknown fleet state {state!r}")
            result = FleetStatus(
                state=state,
                revision=fields.uint64("revision"),
                refused_values=fields.uint64("refusedValues"),
                cache_directory=fields.string("cacheDirectory"),
                endpoint=fields.string("endpoint", required=False),
                latest_revision=fields.uint64("latestRevision", required=False),
                last_error=fields.string("lastError", required=False),
                last_error_date=fields.value("lastErrorDate", required=False),
            )
    elif op == "getEffective":
        value = fields.value("value", required=False)
        source = read_source(fields.sub("source")) if fields.has("source") else None
        if (value is None) != (source is None):
            raise ProtocolViolation("message from prefsd: getEffective's `value` and `source` come together")
        shadowed = []
        for entry in fields.entries("shadowed", required=False):
            shadowed.append((entry.value("value"), read_source(entry.sub("source"))))
            entry.finish()
        skipped = []
        for entry in fields.entries("skipped", required=False):
            skipped.append((read_source(entry.sub("source")), entry.string("reason")))
            entry.finish()
        result = Resolution(value, source, shadowed, skipped)
    elif op == "subscribe":
        subscription = fields.uint64("subscription")
        values, sequences = read_snapshot(fields)
        result = (subscription, values, sequences)
    else:
        raise ProtocolViolation(f"message from prefsd: a reply for the unknown operation {op!r}")
    fields.finish()
    return result


class Reply(NamedTuple):
    """A reply read from the daemon: the request ``id``, and either the operation's result or the error."""

    id: int
    op: str | None
    result: Any
    error: dict[str, Any] | None


class EventMessage(NamedTuple):
    """An event read from the daemon. ``subscription`` is ``None`` for ``closing``; ``payload`` is a
    :class:`Change`, :class:`Batch`, ``(values, sequences)`` for ``resync``, or the error dictionary of
    ``closing``."""

    kind: str
    subscription: int | None
    payload: Any


def read_message(message: dict[str, Any], expected_op: str | None) -> Reply | EventMessage:
    """Read one message from the daemon strictly: a reply (it has ``id``) or an event (it has ``event``).

    :param expected_op: The operation of the request with this ``id``, when the caller knows it: the
        reply's ``op`` must match it.
    :raises ProtocolViolation: on anything the protocol does not allow.
    """
    fields = Fields(message, "")
    has_id, has_event = "id" in message, "event" in message
    if has_id and has_event:
        raise ProtocolViolation("message from prefsd has both `id` and `event`")
    if has_id:
        request_id = fields.uint64("id")
        if "error" in message:
            error = read_error(fields.sub("error"))
            fields.finish()
            return Reply(request_id, None, None, error)
        op = fields.string("op")
        if expected_op is not None and op != expected_op:
            raise ProtocolViolation(f"prefsd answered request {request_id} ({expected_op}) as a {op} reply")
        return Reply(request_id, op, read_result(op, fields), None)
    if not has_event:
        raise ProtocolViolation("message from prefsd has neither `id` nor `event`")
    kind = fields.string("event")
    if kind == "closing":
        payload: Any = read_error(fields.sub("error"))
        subscription = None
    elif kind == "change":
        subscription = fields.uint64("subscription")
        origin = read_origin(fields.sub("origin"))
        payload = read_change(fields, origin)
    elif kind == "batch":
        subscription = fields.uint64("subscription")
        origin = read_origin(fields.sub("origin"))
        changes = []
        for entry in fields.entries("changes"):
            changes.append(read_change(entry, origin))
            entry.finish()
        if not changes:
            raise ProtocolViolation("message from prefsd: a batch event without changes")
        payload = Batch(changes, origin)
    elif kind == "resync":
        subscription = fields.uint64("subscription")
        payload = read_snapshot(fields)
    else:
        raise ProtocolViolation(f"message from prefsd: unknown event kind {kind!r}")
    fields.finish()
    return EventMessage(kind, subscription, payload)
