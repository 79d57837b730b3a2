"""The per-turn source summary (``OVHOOKS_USAGE_VIEW=summary``, off by default).

UserPromptSubmit notes which memories it supplied for this turn in ``usage/<session>.json``;
Stop takes the note and shows one line in its ``systemMessage``, like the anchor's OV-Usage:
``ovhooks: 3 memories supplied · prefs 2, project 1: tabs-never-spaces, deploy-day, +1 more``.
Nothing is written when the view is off.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# (URI fragment, label), first match wins
KINDS = (
    ("/peers/", "project"),
    ("/memories/preferences", "prefs"),
    ("/memories/profile", "profile"),
    ("/memories/entities", "entities"),
    ("/memories/events", "history"),
    ("/skills", "skills"),
    ("viking://resources", "docs"),
)


def _path(state_dir: str, session_key: str) -> str:
    from ovhooks.settings.layout import usage_note_path

    return usage_note_path(state_dir, session_key)


def note_supplied(state_dir: str, session_key: str, uris: Sequence[str], now: float) -> None:
    """Remember this turn's supplied memories (replacing the previous turn's note)."""
    from ovhooks.fsutil import ensure_dir, write_json_atomic

    path = _path(state_dir, session_key)
    ensure_dir(os.path.dirname(path))
    write_json_atomic(path, {"uris": list(uris), "at": now}, durable=False)


def take_summary(state_dir: str, session_key: str) -> str | None:
    """The line for this turn, consuming the note; ``None`` when nothing was supplied."""
    path = _path(state_dir, session_key)
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        os.unlink(path)
    except (OSError, ValueError):
        return None
    uris = [u for u in doc.get("uris") or [] if isinstance(u, str)] if isinstance(doc, dict) else []
    if not uris:
        return None
    counts: dict[str, int] = {}
    for uri in uris:
        kind = next((label for part, label in KINDS if part in uri), "other")
        counts[kind] = counts.get(kind, 0) + 1
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1]))
    noun = "memory" if len(uris) == 1 else "memories"
    names = [_name(uri) for uri in uris[:NAMED]]
    if len(uris) > NAMED:
        names.append(f"+{len(uris) - NAMED} more")
    return f"ovhooks: {len(uris)} {noun} supplied · {kinds}: {', '.join(names)}"


# How many memories the line names (the rest are counted).
NAMED = 3


def _name(uri: str) -> str:
    """A memory's file name as people know it: no folder, no ``.md``, no closing hash."""
    from ovhooks.recall.text import one_line
    from ovhooks.rules.memory_uri import name_digest_start

    cut = name_digest_start(uri)
    name = (uri[:cut] if cut >= 0 else uri).rstrip("/").rsplit("/", 1)[-1].removesuffix(".md")
    return one_line(name)[:60] or uri
