"""``ovhooks status``'s hosts: which agents have ovhooks' hooks installed, and which of them
are active (ovhooks captured a turn from them lately). One memory serves them all: the same
project and user identity whatever the host."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ACTIVE_S = 24 * 3600  # a capture this recent makes a host active


def host_rows(
    environ: Mapping[str, str], cwd: str, sessions: list[dict[str, Any]], now: float
) -> list[dict[str, Any]]:
    """One row per host ovhooks knows: installed (where), sessions seen, last capture."""
    from ovhooks.commands import hostconfig
    from ovhooks.commands.doctor.hooks import registrations

    rows = []
    for host in hostconfig.HOSTS:
        try:
            found, problems = registrations(host, environ, cwd)
        except Exception as exc:  # a status line never costs the whole status
            found, problems = [], [str(exc)[:200]]
        ours = [s for s in sessions if s.get("host") == host]
        captures = [float(s["last_activity_at"]) for s in ours if s.get("last_activity_at")]
        last = max(captures, default=None)
        rows.append(
            {
                "host": host,
                "label": hostconfig.host_label(host),
                "installed": bool(found),
                "scopes": [scope for scope, _path, _handlers in found],
                "problems": problems,
                "sessions": len(ours),
                "last_capture_at": last,
                "active": last is not None and now - last <= ACTIVE_S,
            }
        )
    return rows


def describe(row: Mapping[str, Any], now: float) -> str:
    """``Gemini CLI: installed (user), active (last capture 3m ago, 2 session(s))``."""
    from ovhooks.commands.output import age

    where = f"installed ({', '.join(row['scopes'])})" if row["installed"] else "not installed"
    if row["problems"]:
        where += f" [unreadable: {'; '.join(row['problems'])}]"
    last = row["last_capture_at"]
    if last is None:
        use = "no capture yet"
    else:
        state = "active" if row["active"] else "idle"
        use = f"{state} (last capture {age(now - last)}, {row['sessions']} session(s))"
    return f"{row['label']}: {where}, {use}"
