# SPDX-License-Identifier: Apache-2.0
"""The operations of the protocol as methods, shared by the blocking and the asyncio client.

Each method builds a :class:`~prefsd.protocol.Request` (checking its arguments and the client-side limits) and
hands it to ``self._perform(request, transform)``, which the blocking client runs at once and the asyncio client
returns as a coroutine: the same method is ``client.get(...)`` in one and ``await client.get(...)`` in the other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import protocol
from .protocol import Request
from .wire import Limits, to_wire_value

_NO_VALUE = object()


class Operations:
    """Mixin: every request of the protocol but ``hello``, ``subscribe`` and ``unsubscribe``."""

    limits: Limits

    def _perform(self, request: Request, transform: Callable[[Any], Any] = lambda result: result) -> Any:
        raise NotImplementedError

    def get(self, domain: str, key: str, default: Any = None, *, by_host: bool = False, scope: str = "user") -> Any:
        """The value of ``key`` in one domain (one layer, no search list), or ``default`` when it holds none."""
        fields = protocol.domain_fields(domain, by_host, scope)
        fields["key"] = protocol._check_string(key, "key")
        return self._perform(
            Request("get", fields, domain, key), lambda result: default if result.value is None else result.value
        )

    def get_versioned(self, domain: str, key: str, *, by_host: bool = False, scope: str = "user") -> Any:
        """``Versioned(value, version)``: the key's value (``None`` when absent) and the domain's version,
        for a compare-and-set."""
        fields = protocol.domain_fields(domain, by_host, scope)
        fields["key"] = protocol._check_string(key, "key")
        return self._perform(Request("get", fields, domain, key))

    def get_effective(self, app: str, key: str, suites: list[str] | tuple[str, ...] = ()) -> Any:
        """Resolve ``key`` through ``app``'s search list (forced, app, suites, global, system, registration):
        a :class:`~prefsd.protocol.Resolution` with the value, its source, what it shadows and what was skipped."""
        fields = protocol.search_list_fields(app, suites, self.limits)
        fields["key"] = protocol._check_string(key, "key")
        return self._perform(Request("getEffective", fields, app, key))

    def set(
        self,
        domain: str,
        key: str,
        value: Any,
        *,
        expected_version: int | None = None,
        by_host: bool = False,
        scope: str = "user",
    ) -> Any:
        """Store one value; return the domain's version afterwards.

        :param expected_version: Compare-and-set: apply only if the domain is at this version, else raise
            :class:`~prefsd.errors.VersionConflict` (with ``current_version``) and change nothing.
        """
        fields = protocol.domain_fields(domain, by_host, scope)
        fields["key"] = protocol.check_key(key, self.limits, domain)
        fields["value"] = to_wire_value(value, "value", self.limits.maxDepth)
        _add_version(fields, expected_version)
        return self._perform(Request("set", fields, domain, key))

    def set_many(
        self,
        domain: str,
        values: dict[str, Any] | None = None,
        remove_keys: list[str] | tuple[str, ...] = (),
        *,
        expected_version: int | None = None,
        by_host: bool = False,
        scope: str = "user",
    ) -> Any:
        """Store ``values`` and remove ``remove_keys`` atomically (subscribers get one batch); return the
        domain's version afterwards. ``expected_version`` as for :meth:`set`."""
        fields = protocol.domain_fields(domain, by_host, scope)
        if values:
            fields["values"] = protocol.wire_values(values, self.limits, domain)
        removing = [protocol.check_key(key, self.limits, domain, f"remove_keys[{index}]") for index, key in
                    enumerate(remove_keys)]
        if removing:
            fields["removeKeys"] = removing
        _add_version(fields, expected_version)
        return self._perform(Request("setMany", fields, domain))

    def remove(
        self,
        domain: str,
        key: str,
        *,
        expected_version: int | None = None,
        by_host: bool = False,
        scope: str = "user",
    ) -> Any:
        """Remove one key (an absent key is no error); return the domain's version afterwards."""
        fields = protocol.domain_fields(domain, by_host, scope)
        fields["key"] = protocol.check_key(key, self.limits, domain)
        _add_version(fields, expected_version)
        return self._perform(Request("remove", fields, domain, key))

    def read_domain(self, domain: str, *, by_host: bool = False, scope: str = "user") -> Any:
        """``DomainContents(values, version)``: every key of one domain and its version.

        :raises ~prefsd.errors.NotFound: when the domain does not exist.
        """
        return self._perform(Request("readDomain", protocol.domain_fields(domain, by_host, scope), domain))

    def write_domain(
        self,
        domain: str,
        values: dict[str, Any],
        *,
        expected_version: int | None = None,
        by_host: bool = False,
        scope: str = "user",
    ) -> Any:
        """Replace every key of one domain atomically; return its version afterwards."""
        fields = protocol.domain_fields(domain, by_host, scope)
        fields["values"] = protocol.wire_values(values, self.limits, domain)
        _add_version(fields, expected_version)
        return self._perform(Request("writeDomain", fields, domain))

    def remove_domain(
        self, domain: str, *, expected_version: int | None = None, by_host: bool = False, scope: str = "user"
    ) -> Any:
        """Delete one domain; return its version afterwards.

        :raises ~prefsd.errors.NotFound: when the domain does not exist.
        """
        fields = protocol.domain_fields(domain, by_host, scope)
        _add_version(fields, expected_version)
        return self._perform(Request("removeDomain", fields, domain))

    def list_domains(self, *, scope: str = "user", by_host: bool = False) -> Any:
        """The names of one layer's domains (the by-host ones with ``by_host=True``), sorted by UTF-8 bytes."""
        if scope not in protocol.SCOPES:
            raise ValueError(f"scope must be one of {', '.join(protocol.SCOPES)} (got {scope!r})")
        fields: dict[str, Any] = {}
        if scope != "user":
            fields["scope"] = scope
        if by_host:
            fields["byHost"] = True
        return self._perform(Request("listDomains", fields))

    def synchronize(self) -> Any:
        """Return once every change is durably on disk and changes made outside prefsd have been read in."""
        return self._perform(Request("synchronize", {}))

    def fleet_status(self) -> Any:
        """The daemon's state in a fleet as a :class:`~prefsd.protocol.FleetStatus`, or ``None`` when it is in
        none (docs/FLEET.md)."""
        return self._perform(Request("fleetStatus", {}))


def _add_version(fields: dict[str, Any], expected_version: int | None) -> None:
    if expected_version is not None:
        fields["expectedVersion"] = protocol.check_version(expected_version)
