"""Memories filed under a project's old, path-based peer stay found after the identity moved.

Decision: recall reads the old peer as well, rather than moving memories on the server. A
move would need the server's ``fs/mv`` and a re-index, could half-fail mid-way, and must not
happen behind a teammate's back on a shared server; reading is side-effect free. The cost is
one extra ``find`` per prompt (acting as the old peer: OpenViking shows a peer's memories only
to a caller acting as it), paid only in a folder whose old peer actually holds memories:
SessionStart looks once a day (one ``ls``) and records the answer in
``<state>/projects/<peer>.json``; the prompt hook reads that small file.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.backend.base import Backend

RECHECK_S = 24 * 3600


def memory_uri(peer: str) -> str:
    return f"viking://~/peers/{peer}/memories"


def _marker(state_dir: str, peer: str) -> str:
    from ovhooks.settings.layout import project_marker_path

    return project_marker_path(state_dir, peer)


def _read(state_dir: str, peer: str) -> dict[str, object]:
    try:
        with open(_marker(state_dir, peer), encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def legacy_targets(state_dir: str, peer: str, legacy_peer: str) -> tuple[str, ...]:
    """URIs recall should also search: the old peer's memories, when it has any."""
    if not legacy_peer or not peer:
        return ()
    doc = _read(state_dir, peer)
    if doc.get("legacy_peer") == legacy_peer and doc.get("has_memories"):
        return (memory_uri(legacy_peer),)
    return ()


def refresh(state_dir: str, peer: str, legacy_peer: str, backend: Backend, now: float) -> None:
    """Look (at most daily) whether the old peer holds memories and record it."""
    if not legacy_peer or not peer:
        return
    doc = _read(state_dir, peer)
    checked = doc.get("checked_at")
    fresh = isinstance(checked, int | float) and now - checked < RECHECK_S
    if doc.get("legacy_peer") == legacy_peer and fresh:
        return
    from ovhooks.transport.errors import BackendError

    try:  # ``backend`` acts as the old peer: OpenViking filters peer memories by the actor
        found = backend.ls(memory_uri(legacy_peer), recursive=True, limit=8)
    except BackendError as exc:
        if exc.status != 404:
            return  # unknown: look again next time
        found = []
    has = any(isinstance(e, dict) and not e.get("isDir") for e in found)
    from ovhooks.fsutil import ensure_dir, write_json_atomic

    ensure_dir(os.path.dirname(_marker(state_dir, peer)))
    write_json_atomic(
        _marker(state_dir, peer),
        {"legacy_peer": legacy_peer, "has_memories": has, "checked_at": now},
        durable=False,
    )
