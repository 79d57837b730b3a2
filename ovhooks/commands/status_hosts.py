"""``ovhooks status``'s host table: which hosts ovhooks is installed for (and in which
scope), and which are active (sessions captured, and when last), from the same state files."""

from __future__ import annotations

from ovhooks.commands import hostconfig
from ovhooks.fsutil import read_text_file
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any


def installed_scopes(host: str, environ: Mapping[str, str], cwd: str) -> list[str]:
    """The scopes in which ovhooks is registered with ``host`` (unreadable files: none)."""
    if host_spec(host).install == "shim":
        from ovhooks.commands.doctor.shims import shim_command

        scopes = []
        for scope in hostconfig.SCOPES:
            path = hostconfig.hooks_file(host, scope, environ, cwd)
            try:
                text = read_text_file(path, 1 << 20, errors="replace")
                if shim_command(text) is not None and scope not in scopes:
                    scopes.append(scope)
            except OSError:
                continue
        return scopes
    from ovhooks.commands.doctor.hooks import registrations

    found, _problems = registrations(host, environ, cwd)
    return [scope for scope, _path, _handlers in found]


def host_rows(
    sessions: Sequence[Mapping[str, Any]], environ: Mapping[str, str], cwd: str
) -> list[dict[str, Any]]:
    """One row per host: ``{host, label, installed, sessions, last_capture_at}``."""
    rows = []
    for host in hostconfig.HOSTS:
        captures = [
            float(s["last_activity_at"])
            for s in sessions
            if s.get("host") == host and s.get("last_activity_at") is not None
        ]
        rows.append(
            {
                "host": host,
                "label": hostconfig.HOST_LABELS.get(host, host),
                "installed": installed_scopes(host, environ, cwd),
                "sessions": sum(1 for s in sessions if s.get("host") == host),
                "last_capture_at": max(captures, default=None),
            }
        )
    return rows
