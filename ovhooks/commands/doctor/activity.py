"""Doctor's capture checks, one per host: the last turn ovhooks captured against the host's own
last use, so hooks that silently stopped firing (untrusted, uninstalled, a host upgrade) show."""

from __future__ import annotations

import os

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ovhooks.commands.doctor.result import Check

STALE_CAPTURE_S = 24 * 3600  # a host used this long after the last capture means it stopped
_SCAN_LIMIT = 400  # directories looked at per host, newest first


def _newest_file(root: str, suffix: str, depth: int) -> float:
    """The newest mtime of a ``suffix`` file under ``root`` within ``depth`` levels, walking the
    newest-named directories first (Codex nests by date, Claude by project)."""
    newest = 0.0
    budget = [_SCAN_LIMIT]

    def walk(folder: str, level: int) -> None:
        nonlocal newest
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
        except OSError:
            return
        for entry in entries:
            if budget[0] <= 0:
                return
            try:
                if entry.is_dir(follow_symlinks=False) and level < depth:
                    budget[0] -= 1
                    walk(entry.path, level + 1)
                elif entry.name.endswith(suffix):
                    newest = max(newest, entry.stat().st_mtime)
            except OSError:
                continue

    walk(root, 0)
    return newest


def host_last_used(host: str, environ: Mapping[str, str]) -> float:
    """When the host last wrote a transcript (0: never, or no transcripts found): the newest
    file where it keeps them (``HostSpec.activity``), or its own ``last_used``."""
    from ovhooks.commands import hostconfig
    from ovhooks.hosts.registry import spec as host_spec

    spec = host_spec(host)
    if spec.last_used is not None:
        return spec.last_used(environ)
    if spec.activity is None:
        return 0.0
    folder, suffix, depth = spec.activity
    return _newest_file(os.path.join(hostconfig.config_dir(host, environ), folder), suffix, depth)


def _ago(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{int(seconds // 86400)} days ago"
    if seconds >= 2 * 3600:
        return f"{int(seconds // 3600)} hours ago"
    return f"{max(0, int(seconds // 60))} min ago"


def check_capture_activity(
    host: str, state_dir: str, environ: Mapping[str, str], now: float
) -> Check:
    """The last capture for ``host`` against the host's own last use: hooks that silently stopped
    firing (untrusted, uninstalled, a host upgrade) show as "capture stopped N days ago"."""
    from ovhooks.commands.hostconfig import host_label
    from ovhooks.commands.status import session_rows

    label = host_label(host)
    try:
        rows = session_rows(state_dir, now, 0)
    except OSError:  # the state-dir check reports an unusable state directory
        rows = []
    captures = [
        float(r["last_activity_at"])
        for r in rows
        if r["host"] == host and r["last_activity_at"] is not None
    ]
    last_capture = max(captures, default=0.0)
    used = host_last_used(host, environ)
    details = {"last_capture_at": last_capture or None, "host_last_used_at": used or None}
    name = f"capture:{host}"
    if not last_capture and not used:
        return check(name, "skip", f"no {label} sessions seen", **details)
    if not last_capture:
        return check(
            name,
            "warn",
            f"{label} was used {_ago(now - used)} but ovhooks never captured a turn from it",
            f"run `ovhooks doctor` after one {label} turn; check the hooks above",
            **details,
        )
    if used - last_capture > STALE_CAPTURE_S:
        return check(
            name,
            "warn",
            f"{label}: capture stopped {_ago(now - last_capture)} "
            f"({label} was used {_ago(now - used)})",
            f"check that ovhooks' {host} hooks are installed and trusted; see `ovhooks status`",
            **details,
        )
    return check(name, "ok", f"{label}: last capture {_ago(now - last_capture)}", **details)
