# SPDX-License-Identifier: Apache-2.0
"""Where prefsd's socket is, by the rule of docs/PROTOCOL.md ("Connecting")."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["socket_path"]


def socket_path(environ: Mapping[str, str] | None = None, uid: int | None = None) -> str:
    """Return the path of prefsd's socket for a user, as the daemon itself computes it.

    ``$PREFSD_SOCKET`` when set; else ``$XDG_RUNTIME_DIR/prefsd/socket``; without ``XDG_RUNTIME_DIR``,
    ``/run/user/<uid>/prefsd/socket`` when ``/run/user/<uid>`` exists, else ``/tmp/prefsd-<uid>/socket``.
    Empty variables count as unset, and trailing slashes of ``XDG_RUNTIME_DIR`` are dropped, exactly as the
    server's ``WireSocketPath`` does, so the client and the daemon always agree.

    :param environ: The environment to read (default: ``os.environ``).
    :param uid: The user's uid for the fallbacks (default: ``os.getuid()``).
    """
    environ = os.environ if environ is None else environ
    uid = os.getuid() if uid is None else uid
    explicit = environ.get("PREFSD_SOCKET", "")
    if explicit:
        return explicit
    runtime = environ.get("XDG_RUNTIME_DIR", "")
    if runtime:
        while len(runtime) > 1 and runtime.endswith("/"):
            runtime = runtime[:-1]
        return runtime + "/prefsd/socket"
    run_user = f"/run/user/{uid}"
    if os.path.isdir(run_user):
        return run_user + "/prefsd/socket"
    return f"/tmp/prefsd-{uid}/socket"
