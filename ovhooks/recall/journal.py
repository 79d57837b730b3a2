"""The recall log: one line per UserPromptSubmit decision, read by ``ovhooks ui``.

Written by the hook, so it must cost next to nothing: one ``O_APPEND`` write of one JSON line
(the kernel appends it whole, so concurrent hooks never interleave), no lock, no read. The
file is bounded: past ``MAX_BYTES`` it is renamed to ``journal.jsonl.1`` (the one older
generation kept) and a new one starts. Modes are 0600 in a 0700 folder. What a line holds is
already scrubbed: the prompt's head is the text the recall query was built from (after the
secret scrubber), cut to ``PROMPT_HEAD_CHARS``; a prompt recall skipped before scrubbing is
not written at all, only the reason.
"""

from __future__ import annotations

import json
import os

from ovhooks.fsutil import ensure_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

MAX_BYTES = 1024 * 1024
PROMPT_HEAD_CHARS = 160
MAX_READ_LINES = 20000


def journal_path(state_dir: str) -> str:
    return os.path.join(state_dir, "recall", "journal.jsonl")


def append(state_dir: str, entry: dict[str, Any]) -> None:
    """Add ``entry`` as one line (best effort: a full disk loses a log line, never a hook)."""
    data = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    path = journal_path(state_dir)
    try:
        fd = _open(path)
        try:
            if os.fstat(fd).st_size + len(data) > MAX_BYTES:
                os.replace(path, path + ".1")
                os.close(fd)
                # Marked closed first: if the reopen fails, the old number must not be
                # closed again (it may already be another thread's file or socket).
                fd = -1
                fd = _open(path)
            os.write(fd, data)
        finally:
            if fd >= 0:
                os.close(fd)
    except OSError:
        return


def _open(path: str) -> int:
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags, 0o600)
    except FileNotFoundError:
        ensure_dir(os.path.dirname(path))
        return os.open(path, flags, 0o600)


def read(state_dir: str) -> list[dict[str, Any]]:
    """Every readable entry, oldest first (the rotated generation, then the current one)."""
    path = journal_path(state_dir)
    entries: list[dict[str, Any]] = []
    for name in (path + ".1", path):
        entries.extend(_lines(name))
    return entries[-MAX_READ_LINES:]


def _lines(path: str) -> Iterator[dict[str, Any]]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(2 * MAX_BYTES)
    except OSError:
        return
    for line in raw.splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            continue  # a line cut by a crash or a rotation
        if isinstance(entry, dict):
            yield entry


def entry_for(
    *,
    now: float,
    host: str,
    session: str,
    peer: str,
    reason: str,
    prompt_head: str,
    tokens: int,
    items: list[tuple[str, float]],
) -> dict[str, Any]:
    """One line's shape (``items``: injected URIs with their scores, in the injected order)."""
    return {
        "t": round(now, 3),
        "host": host,
        "session": session,
        "peer": peer,
        "reason": reason,
        "prompt": prompt_head[:PROMPT_HEAD_CHARS],
        "tokens": tokens,
        "items": [{"uri": uri, "score": round(score, 3)} for uri, score in items],
    }


def per_memory(entries: list[dict[str, Any]]) -> dict[str, tuple[int, float]]:
    """URI -> (times injected, last injected at)."""
    stats: dict[str, tuple[int, float]] = {}
    for entry in entries:
        at = entry.get("t")
        when = float(at) if isinstance(at, int | float) else 0.0
        for item in entry.get("items") or ():
            uri = item.get("uri") if isinstance(item, dict) else None
            if isinstance(uri, str):
                count, last = stats.get(uri, (0, 0.0))
                stats[uri] = (count + 1, max(last, when))
    return stats
