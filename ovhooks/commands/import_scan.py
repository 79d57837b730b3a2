"""Which transcripts ``ovhooks import`` reads, each identified as live capture names it.

The files or folders named on the command line, or the host's own session folders.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat

from ovhooks.commands.errors import CommandError, ExitCode, usage_error
from ovhooks.fsutil import open_regular
from ovhooks.transcripts.reader import parse_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I)
_HEAD_LINES = 50
# A longer first line is not one a session can be told by (a 200 MB line cost 449 MB)
_HEAD_LINE_MAX = 4 * 1024 * 1024


class Transcript:
    """One transcript file and what identifies its session."""

    __slots__ = ("cwd", "host", "mtime", "path", "session_id", "size")

    def __init__(
        self, *, host: str, path: str, session_id: str, cwd: str, mtime: float, size: int
    ) -> None:
        self.host = host
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.mtime = mtime
        self.size = size


def default_root(host: str, environ: Mapping[str, str]) -> str:
    """The folder the host keeps its transcripts in (where import looks by default)."""
    from ovhooks.commands import hostconfig
    from ovhooks.hosts.registry import spec as host_spec

    activity = host_spec(host).activity
    folder = activity[0] if activity else ""
    return os.path.join(hostconfig.config_dir(host, environ), folder)


def default_paths(host: str, environ: Mapping[str, str]) -> list[str]:
    root = default_root(host, environ)
    if host == "codex":
        return _files_under(root, "rollout-*.jsonl", depth=None)
    return _files_under(root, "*.jsonl", depth=1)


def _files_under(root: str, pattern: str, *, depth: int | None) -> list[str]:
    """Regular files named like ``pattern`` under ``root``, ``depth`` folders down exactly
    (None: at any depth), sorted. Links to folders are not followed (a loop of them made a
    recursive glob run on without end) and anything but a regular file is left out (a FIFO
    blocked the read of its first lines forever)."""
    found: list[str] = []
    for folder, subfolders, names in os.walk(root):
        level = 0 if folder == root else os.path.relpath(folder, root).count(os.sep) + 1
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]  # as glob skips them
        if depth is not None and level >= depth:
            subfolders.clear()
        if depth is not None and level != depth:
            continue
        found.extend(
            os.path.join(folder, name)
            for name in fnmatch.filter(names, pattern)
            if not name.startswith(".") and _regular(os.path.join(folder, name))
        )
    return sorted(found)


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def expand(host: str, paths: list[str], environ: Mapping[str, str]) -> list[str]:
    """Files named, or the host's transcripts under folders named, or the default folders."""
    if not paths:
        return default_paths(host, environ)
    out: list[str] = []
    for path in paths:
        if _regular(path):
            out.append(os.path.abspath(path))
        elif os.path.isdir(path):
            pattern = "rollout-*.jsonl" if host == "codex" else "*.jsonl"
            found = _files_under(path, pattern, depth=None)
            # Claude keeps subagent transcripts in <session>/subagents/: not sessions of their own
            out.extend(os.path.abspath(f) for f in found if f"{os.sep}subagents{os.sep}" not in f)
        elif os.path.exists(path):
            raise CommandError(
                f"{path} is not a regular file or a folder",
                fix="give a transcript file or folder",
            )
        else:
            raise CommandError(
                f"{path} does not exist",
                fix="give a transcript file or folder",
                code=ExitCode.NOT_FOUND,
                slug="not_found",
            )
    return list(dict.fromkeys(out))


def _head(path: str) -> list[dict[str, Any]]:
    records = []
    # open_regular: a file replaced by a FIFO since it was listed raises, never blocks
    with os.fdopen(open_regular(path), "rb") as fh:
        for _ in range(_HEAD_LINES):
            line = fh.readline(_HEAD_LINE_MAX)
            if not line or (len(line) == _HEAD_LINE_MAX and not line.endswith(b"\n")):
                break
            record = parse_line(line)
            if record is not None:
                records.append(record)
    return records


def identify(host: str, path: str) -> Transcript | None:
    """The session a transcript belongs to, as live capture names it; None if unknown."""
    try:
        info = os.stat(path)
        head = _head(path)
    except OSError:
        return None
    session_id = cwd = ""
    if host == "codex":
        for record in head:
            payload = record.get("payload")
            if record.get("type") == "session_meta" and isinstance(payload, dict):
                session_id = str(payload.get("id") or payload.get("session_id") or "")
                cwd = str(payload.get("cwd") or "")
                break
        if not session_id:
            match = _UUID.search(os.path.basename(path))
            session_id = match.group(1) if match else ""
    else:
        session_id = os.path.basename(path)[: -len(".jsonl")]
        for record in head:
            if isinstance(record.get("cwd"), str) and record["cwd"]:
                cwd = record["cwd"]
                break
    if not session_id:
        return None
    return Transcript(
        host=host,
        path=path,
        session_id=session_id,
        cwd=cwd,
        mtime=info.st_mtime,
        size=info.st_size,
    )


def parse_since(text: str, now: float) -> float:
    """``2026-01-31``, ``2026-01-31T12:00``, or a relative ``7d`` / ``12h`` / ``30m``."""
    text = text.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([dhm])", text)
    if match:
        return now - float(match.group(1)) * {"d": 86400, "h": 3600, "m": 60}[match.group(2)]
    from datetime import datetime

    try:
        # timestamp() too: a date like 0001-01-01 is out of the platform's range
        return datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        raise usage_error(
            f"cannot read --since {text!r}", "use a date (2026-01-31) or an age (7d, 12h)"
        ) from None


def select(
    host: str, paths: list[str], since: str | None, now: float, environ: Mapping[str, str]
) -> list[Transcript]:
    """The transcripts to import: named (or found by default), identified, changed since."""
    files = expand(host, paths, environ)
    cutoff = parse_since(since, now) if since else None
    items = []
    for path in files:
        item = identify(host, path)
        if item is not None and (cutoff is None or item.mtime >= cutoff):
            items.append(item)
    return items
