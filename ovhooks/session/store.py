"""Per-session documents: one JSON document per OpenViking session, its queue included.

Paths come from ``session/layout.py``. Writes are atomic (temp file + ``os.replace``) under the
sibling lock. A corrupt or unreadable document is moved aside (``.corrupt-<time>``) and
rebuilt, so a hook still answers. A dry run uses ``dryrun.PlannedStateStore`` instead:
nothing is written, changes go to an in-memory overlay and the plan.
"""

from __future__ import annotations

import os
import time

from ovhooks.fsutil import FileLock, read_json, write_json_atomic
from ovhooks.settings import layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from ovhooks.log import Log
    from ovhooks.settings.layout import State

STATE_VERSION = 1


def new_state(key: str, host: str, host_session_id: str, now: float) -> State:
    """A fresh state document.

    ``last_activity_at`` moves only on real conversation activity (a prompt, a captured
    turn); registering a session at SessionStart sets ``registered_at`` instead, so a session
    that merely started never looks "recently active" to the commit heuristic.
    """
    return {
        "v": STATE_VERSION,
        "key": key,
        "host": host,
        "host_session_id": host_session_id,
        "ov_session_id": key,
        "parent": None,
        "transcript_path": "",
        "cwd": "",
        "peer": "",
        "created_at": now,
        "registered_at": now,
        "last_activity_at": None,
        "cursor": {"offset": 0, "turns": 0, "tail_hash": ""},
        "recent_uids": [],
        "held": [],
        "synthetic_tail": "",
        "turns_captured": 0,
        "messages_sent": 0,
        "uncommitted": 0,
        "pending_tokens": 0,
        "commit_count": 0,
        "last_commit_at": None,
        "ended": False,
        "end_reason": "",
        "last_error": None,
        "queue": [],
        "next_seq": 1,
    }


class StateStore:
    """The session documents under ``state_dir``: read, locked read-modify-write, delete."""

    def __init__(
        self,
        state_dir: str,
        *,
        log: Log | None = None,
        lock_timeout_s: float = 10.0,
        reader: bool = False,
    ) -> None:
        self.state_dir = state_dir
        self.sessions_dir = layout.sessions_dir(state_dir)
        self.log = log
        self.lock_timeout_s = lock_timeout_s
        # A reader (the viewer) moves nothing aside: a page view is no write, and the hooks,
        # which own the documents, set a corrupt one aside when they next meet it.
        self.reader = reader

    def path(self, key: str) -> str:
        return layout.state_path(self.state_dir, key)

    def lock(self, key: str) -> AbstractContextManager[object]:
        return FileLock(layout.state_lock_path(self.state_dir, key), self.lock_timeout_s)

    def load(self, key: str) -> State | None:
        """The state for ``key``, or None when there is none (or it was corrupt)."""
        path = self.path(key)
        try:
            raw = read_json(path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self._quarantine(path, exc)
            return None
        if not isinstance(raw, dict) or raw.get("key") != key:
            self._quarantine(path, ValueError("not a state document"))
            return None
        queue = raw.get("queue")
        if queue is not None and not (
            isinstance(queue, list) and all(isinstance(e, dict) for e in queue)
        ):
            # A hand edit or another tool left something no worker can send: it failed every
            # worker of the session (nothing captured again). The entries it can read stay.
            raw["queue"] = (
                [e for e in queue if isinstance(e, dict)] if isinstance(queue, list) else []
            )
            if self.log:
                self.log.error("state_queue_damaged", path=path)
        found: State = raw  # type: ignore[assignment]
        return found

    def _quarantine(self, path: str, exc: Exception) -> None:
        if self.reader:
            return
        if self.log:
            self.log.error("state_corrupt", path=path, error=str(exc))
        try:
            os.replace(path, f"{path}.corrupt-{int(time.time())}")
        except OSError:
            pass

    def save(self, doc: State) -> None:
        write_json_atomic(self.path(str(doc["key"])), doc)

    def update(
        self,
        key: str,
        change: Callable[[State], None],
        *,
        create: Callable[[], State] | None = None,
    ) -> State | None:
        """Read-modify-write ``key`` under its lock; returns the saved document.

        Without ``create``, a missing state is left missing and None is returned.
        """
        with self.lock(key):
            doc = self.load(key)
            if doc is None:
                if create is None:
                    return None
                doc = create()
            change(doc)
            self.save(doc)
            return doc

    def delete(self, key: str) -> None:
        try:
            os.unlink(self.path(key))
        except FileNotFoundError:
            pass

    def keys(self) -> list[str]:
        try:
            names = os.listdir(self.sessions_dir)
        except FileNotFoundError:  # nothing captured yet; an unusable directory is an error
            names = []
        keys = {n[: -len(".json")] for n in names if n.endswith(".json") and not n.startswith(".")}
        return sorted(keys)

    def all(self) -> list[State]:
        out = []
        for key in self.keys():
            doc = self.load(key)
            if doc is not None:
                out.append(doc)
        return out
