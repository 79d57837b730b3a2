"""Recall's small state files under ``<state_dir>/recall/``.

- ``servers.json``: per server (backend name + URL), the circuit breaker (``open_until``,
  ``noted``: whether the user was told), whether context search is known to be missing
  (``find_until``: use plain find until then) and the score calibration of the model behind
  it (``calibration``, see ``recall/calibrate.py``). Read on every prompt, written only on
  change.
- ``session-<key>.json``: the URIs already injected in one host session, so a memory is not
  injected twice (Deus #993: 53 % of injections were repeats) until the host compacts.

Writes are atomic (temp file + rename) and best effort: a read-only or full disk costs the
dedupe, never the prompt. Concurrent prompts of one session are rare; the last writer wins.
"""

from __future__ import annotations

import os

from ovhooks.fsutil import read_json, write_json_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

MAX_TRACKED_URIS = 1000
NO_SESSION = "no-session"


def recall_dir(state_dir: str) -> str:
    from ovhooks.settings.layout import recall_dir as layout_recall_dir

    return layout_recall_dir(state_dir)


def _safe_name(key: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in key)[:150]


def session_path(state_dir: str, session_key: str) -> str:
    return os.path.join(recall_dir(state_dir), f"session-{_safe_name(session_key)}.json")


def tracks(session_key: str) -> bool:
    """Whether a key names a real session (no key means no dedupe across unrelated prompts)."""
    return bool(session_key) and session_key != NO_SESSION


def _load(path: str) -> dict[str, Any]:
    try:
        doc = read_json(path)
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _save(path: str, doc: object) -> None:
    try:
        # Not fsync'd: losing this to a power cut only means a memory may be shown again.
        write_json_atomic(path, doc, durable=False)
    except OSError:
        pass


# --- per-session injected set -----------------------------------------------------------------
def injected_uris(state_dir: str, session_key: str) -> list[str]:
    if not tracks(session_key):
        return []
    uris = _load(session_path(state_dir, session_key)).get("injected")
    return [u for u in uris if isinstance(u, str)] if isinstance(uris, list) else []


def add_injected(
    state_dir: str, session_key: str, previous: list[str], new: Iterable[str], now: float
) -> None:
    if not tracks(session_key):
        return
    merged = list(dict.fromkeys([*previous, *new]))[-MAX_TRACKED_URIS:]
    _save(session_path(state_dir, session_key), {"injected": merged, "updated_at": now})


def forget_session(state_dir: str, session_key: str) -> None:
    try:
        os.unlink(session_path(state_dir, session_key))
    except OSError:
        pass


# --- per-server breaker and capability memory ------------------------------------------------
class ServerState:
    """One server's entry in ``servers.json``; ``save`` writes the file back if it changed."""

    __slots__ = ("_all", "_changed", "_path", "entry", "key")

    def __init__(self, state_dir: str, key: str) -> None:
        self._path = os.path.join(recall_dir(state_dir), "servers.json")
        self._all = _load(self._path)
        found = self._all.get(key)
        self.key = key
        self.entry: dict[str, Any] = dict(found) if isinstance(found, dict) else {}
        self._changed = False

    def _num(self, name: str) -> float:
        value = self.entry.get(name)
        return float(value) if isinstance(value, int | float) else 0.0

    def _until(self, name: str, since: str, now: float) -> bool:
        """Whether the window ``name`` ends after ``now``. A window opened later than ``now``
        was opened by a clock since set back: it is over (else it would last the whole skew,
        a day of no recall after a day's jump)."""
        started = self.entry.get(since)
        if isinstance(started, int | float) and started > now:
            return False
        return self._num(name) > now

    def breaker_open(self, now: float) -> bool:
        return self._until("open_until", "since", now)

    def breaker_noted(self) -> bool:
        return bool(self.entry.get("noted"))

    def open_breaker(self, now: float, seconds: float, reason: str, *, noted: bool) -> None:
        self.entry.update(open_until=now + seconds, noted=noted, reason=reason, since=now)
        self._changed = True

    def mark_noted(self) -> None:
        if not self.breaker_noted():
            self.entry["noted"] = True
            self._changed = True

    def close_breaker(self) -> None:
        for name in ("open_until", "noted", "reason", "since"):
            if name in self.entry:
                del self.entry[name]
                self._changed = True

    def use_find(self, now: float) -> bool:
        return self._until("find_until", "find_since", now)

    def remember_find(self, now: float, seconds: float) -> None:
        self.entry.update(find_until=now + seconds, find_since=now)
        self._changed = True

    def use_narrow(self, now: float) -> bool:
        """Whether this server refused the wider pool's quotas lately (``recall.retrieve``)."""
        return self._until("narrow_until", "narrow_since", now)

    def remember_narrow(self, now: float, seconds: float) -> None:
        self.entry.update(narrow_until=now + seconds, narrow_since=now)
        self._changed = True

    def calibration(self) -> object:
        return self.entry.get("calibration")

    def set_calibration(self, doc: dict[str, Any]) -> None:
        self.entry["calibration"] = doc
        self._changed = True

    def save(self) -> None:
        if not self._changed:
            return
        doc = {k: v for k, v in self._all.items() if k != self.key}
        if self.entry:
            doc[self.key] = self.entry
        _save(self._path, doc)
        self._changed = False
