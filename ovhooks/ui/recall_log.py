"""The recall log as the viewer reads it: each line the hook wrote, in one typed shape.

``recall.journal.read`` returns the lines as parsed (the hook's side stays a bare append);
a line edited by hand or written by another version can hold anything (``"t": "abc"``,
``NaN``, ``items`` a string, an item without its score). Each line is read here once into a
``LogEntry``: a value that cannot be what the field holds is ``None`` (the JSON API says
``null``, a page shows "—"), ``items`` keeps only the items that name a memory URI, and an
entry whose time is unknown is listed on the page but never sent as "new" to the page's live
updates (it cannot be placed after any moment).
"""

from __future__ import annotations

from ovhooks.settings.readback import count, moment, number, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypedDict

    class LogItem(TypedDict):
        uri: str
        score: float | None

    class LogEntry(TypedDict):
        t: float | None
        host: str
        session: str
        peer: str
        reason: str
        prompt: str
        tokens: int | None
        items: list[LogItem]


def entries(state_dir: str) -> list[LogEntry]:
    """Every readable line of the recall log, oldest first, each in the one shape."""
    from ovhooks.recall.journal import read

    return [entry(raw) for raw in read(state_dir)]


def entry(raw: dict[str, Any]) -> LogEntry:
    items = raw.get("items")
    return {
        "t": moment(raw.get("t")),
        "host": text(raw.get("host")),
        "session": text(raw.get("session")),
        "peer": text(raw.get("peer")),
        "reason": text(raw.get("reason")),
        "prompt": text(raw.get("prompt")),
        "tokens": count(raw.get("tokens")),
        "items": [
            {"uri": i["uri"], "score": number(i.get("score"))}
            for i in (items if isinstance(items, list) else [])
            if isinstance(i, dict) and isinstance(i.get("uri"), str)
        ],
    }


def per_memory(log: list[LogEntry]) -> dict[str, tuple[int, float | None]]:
    """URI -> (times injected, last injected at; ``None`` when no injection's time is known)."""
    stats: dict[str, tuple[int, float | None]] = {}
    for line in log:
        for item in line["items"]:
            times, last = stats.get(item["uri"], (0, None))
            at = line["t"]
            stats[item["uri"]] = (times + 1, at if last is None or (at or 0.0) > last else last)
    return stats


def since(log: list[LogEntry], moment_seen: float) -> list[LogEntry]:
    """The entries logged after ``moment_seen`` (one whose time is unknown is never after)."""
    return [e for e in log if e["t"] is not None and e["t"] > moment_seen]


def latest(log: list[LogEntry]) -> float:
    """The newest known time in the log; 0.0 when none is known."""
    return max((e["t"] for e in log if e["t"] is not None), default=0.0)
