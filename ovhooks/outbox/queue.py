"""The durable per-session queue: every write is on disk before any network call.

The queue is a list inside the session document (``session/layout.py``), drained strictly in order:

- ``append``: the messages of one capture, kept in a blob file written once under a name
  that is never reused. The entry says how many of them the server has taken (``sent``) and
  which batch is in flight. A capture queues its entry and moves the transcript cursor, the
  turn uids and Claude's synthetic tail in ONE atomic write of the document, so whichever
  drainer sends the entry (worker, flush, SessionStart replay, sweep, import) moves nothing
  else: the cursor already says those turns are captured.
- ``commit``: archive the session and extract memories, queued behind the appends.

Sending a batch is a three-step protocol on the document: mark it in flight (with the time),
send, record the answer. A batch left in flight by a crash or a client timeout is resent only
when the first attempt has certainly failed: the marks the session's messages carry (live
or archived, so a commit cannot hide them) say the batch is not there, and either the
server answered with an error or its processing window has passed (the local store
applies a batch in one SQL transaction before answering, so its answer is final at once).
Until then the drain stops there: one write in flight per session.

A request the server answers as malformed (400/413/422) will never pass: the batch is split
and sent one message at a time, and the message refused alone is set aside under
``outbox/dead/`` (reported once), so the records behind it still go.

This module holds the queue and the drain loop; ``outbox/box.py`` what the parts share,
``outbox/send.py`` the batch protocol,
``outbox/legacy.py`` the adoption of entries an older ovhooks queued as files, and
``dryrun/record.py`` the outbox of a dry run (it plans the requests instead of sending them).
"""

from __future__ import annotations

import os
import time

from ovhooks.fsutil import read_json, remove_stale_tmp, write_json_atomic
from ovhooks.outbox.box import MAX_BATCH, DrainResult, InflightError
from ovhooks.settings import layout
from ovhooks.transport.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.log import Log
    from ovhooks.session.store import StateStore
    from ovhooks.settings.layout import QueueEntry, State

# How long a request the client gave up on may still be applied by the server. Past it, a
# batch the server does not show was not taken and is sent again. OpenViking applies a batch
# in ~15 ms; a request still unanswered after 30 s is one a gateway has given up on (504).
# Whatever a later commit did, the marks each message carries (``outbox.send.marked``) say
# whether the batch landed, so only a batch the server does not hold waits for this window.
DEFAULT_INFLIGHT_WINDOW_S = 30.0


def batches(messages: list[dict[str, Any]], size: int = MAX_BATCH) -> list[list[dict[str, Any]]]:
    """``messages`` in consecutive batches of at most ``size``."""
    return [messages[i : i + size] for i in range(0, len(messages), size)]


def find(doc: State, seq: int) -> QueueEntry | None:
    """The queue entry numbered ``seq`` in ``doc``, if it is still queued."""
    for entry in doc.get("queue") or []:
        if entry.get("seq") == seq:
            return entry
    return None


class Outbox:
    """The queue of one session (``key``): entries in its document, their blobs on disk."""

    def __init__(
        self,
        store: StateStore,
        key: str,
        *,
        log: Log | None = None,
        inflight_window_s: float = DEFAULT_INFLIGHT_WINDOW_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.key = key
        self.state_dir = store.state_dir
        self.dir = layout.outbox_dir(store.state_dir, key)
        self.log = log
        self.window_s = inflight_window_s
        self.clock = clock

    # --- queue ------------------------------------------------------------------------------
    def entries(self) -> list[QueueEntry]:
        doc = self.store.load(self.key)
        return list(doc.get("queue") or []) if doc else []

    def __len__(self) -> int:
        return len(self.entries())

    def write_blob(self, session: str, messages: list[dict[str, Any]]) -> str:
        """Store a capture's messages under a fresh name; returns the name."""
        name = f"{time.time_ns():x}-{os.getpid()}-{os.urandom(4).hex()}.json"
        write_json_atomic(os.path.join(self.dir, name), {"session": session, "messages": messages})
        return name

    def drop_blob(self, name: str) -> None:
        _unlink(os.path.join(self.dir, name))

    def read_blob(self, name: str) -> list[dict[str, Any]]:
        """The messages a blob holds; raises ``OSError`` or ``ValueError``."""
        doc = read_json(os.path.join(self.dir, name))
        messages = doc.get("messages") if isinstance(doc, dict) else None
        if not isinstance(messages, list):
            raise ValueError("not a queued capture")
        return messages

    def enqueue(
        self,
        op: str,
        session: str,
        messages: list[dict[str, Any]] | None = None,
        *,
        change: Callable[[State], None] | None = None,
        **fields: Any,
    ) -> None:
        """Queue an entry, and apply ``change`` to the document in the same atomic write."""
        now = self.clock()
        blob = self.write_blob(session, messages) if op == "append" and messages else ""
        if blob:
            fields = {**fields, "blob": blob, "count": len(messages or []), "sent": 0}

        def apply(doc: State) -> None:
            if op != "append" or blob:
                self.append_entry(doc, op, session, now, **fields)
            if change is not None:
                change(doc)

        def create() -> State:
            from ovhooks.session.store import new_state

            return new_state(self.key, "", "", now)

        try:
            self.store.update(self.key, apply, create=create)
        except BaseException:
            if blob:
                self.drop_blob(blob)  # not queued: whoever captured it will read it again
            raise

    @staticmethod
    def append_entry(doc: State, op: str, session: str, now: float, **fields: Any) -> None:
        """Add an entry to ``doc``'s queue (inside the caller's atomic update)."""
        seq = max(int(doc.get("next_seq") or 1), 1)
        entry: dict[str, Any] = {"op": op, "seq": seq, "session": session, "created_at": now}
        entry.update(fields)
        doc["next_seq"] = seq + 1
        queue: Any = doc.setdefault("queue", [])
        queue.append(entry)

    # --- housekeeping -------------------------------------------------------------------------
    def tidy(self) -> None:
        """Remove what crashes left: blobs no entry names, temp files, old-format entries.

        Runs under the session's worker lock: no other process writes blobs for this key.
        """
        self._adopt_legacy()
        named = {str(e.get("blob")) for e in self.entries() if e.get("op") == "append"}
        try:
            names = os.listdir(self.dir)
        except OSError:
            names = []
        for name in names:
            if (
                name.endswith(".tmp")
                or name.endswith(".progress")
                or (
                    name.endswith(".json")
                    and name not in named
                    and not layout.is_legacy_entry(name)
                )
            ):
                _unlink(os.path.join(self.dir, name))
        remove_stale_tmp(layout.sessions_dir(self.state_dir), prefix=self.key + ".json.")
        self._forget_old_notices()

    def _forget_old_notices(self) -> None:
        """Drop the claims of notices about outages and set-asides that are over."""
        doc = self.store.load(self.key) or {}
        outage: Any = doc.get("outage") or {}
        keep = {
            os.path.basename(
                layout.notice_path(self.state_dir, self.key, f"outage-{outage.get('since')}")
            ),
            os.path.basename(
                layout.notice_path(self.state_dir, self.key, f"set-aside-{doc.get('set_aside')}")
            ),
        }
        prefix = os.path.basename(layout.notice_path(self.state_dir, self.key, ""))
        try:
            names = os.listdir(layout.sessions_dir(self.state_dir))
        except OSError:
            return
        for name in names:
            if name.startswith(prefix) and name not in keep:
                _unlink(os.path.join(layout.sessions_dir(self.state_dir), name))

    def _adopt_legacy(self) -> None:
        """Move entries an older ovhooks queued as files into the document's queue."""
        try:
            names = sorted(n for n in os.listdir(self.dir) if layout.is_legacy_entry(n))
        except OSError:
            return
        if names:
            from ovhooks.outbox.legacy import adopt_files

            adopt_files(self, names)

    # --- drain ------------------------------------------------------------------------------
    def drain(
        self,
        backend: Backend,
        *,
        on_commit_not_found: Callable[[QueueEntry], None] | None = None,
    ) -> DrainResult:
        """Send queued entries in order until the queue is empty or a request fails."""
        result = DrainResult()
        self.tidy()
        while True:
            queue = self.entries()
            if not queue:
                break
            entry = queue[0]
            try:
                if entry.get("op") == "append":
                    from ovhooks.outbox.send import send_append

                    send_append(self, entry, backend, result)
                else:
                    self._send_commit(entry, backend, result, on_commit_not_found)
            except (BackendError, InflightError) as exc:
                result.error = exc
                break
        result.remaining = len(self)
        return result

    def update_entry(self, seq: int, change: Callable[[QueueEntry, State], None]) -> None:
        """Apply ``change`` to entry ``seq`` and its document in one atomic write."""

        def apply(doc: State) -> None:
            entry = find(doc, seq)
            if entry is not None:
                change(entry, doc)

        self.store.update(self.key, apply)

    def patch(self, seq: int, **values: Any) -> None:
        """Set fields of entry ``seq``."""

        def change(entry: QueueEntry, _doc: State) -> None:
            raw: Any = entry
            raw.update(values)

        self.update_entry(seq, change)

    def remove(self, seq: int, change: Callable[[State], None] | None = None) -> None:
        """Drop entry ``seq`` from the queue, applying ``change`` in the same write."""

        def apply(doc: State) -> None:
            doc["queue"] = [e for e in doc.get("queue") or [] if e.get("seq") != seq]
            if change is not None:
                change(doc)

        self.store.update(self.key, apply)

    def _send_commit(
        self,
        entry: QueueEntry,
        backend: Backend,
        result: DrainResult,
        on_not_found: Callable[[QueueEntry], None] | None,
    ) -> None:
        seq = int(entry["seq"])
        try:
            answer = backend.commit(
                entry["session"], keep_recent_count=int(entry.get("keep_recent_count") or 0)
            )
        except BackendError as exc:
            if not exc.not_found:
                raise
            # The server no longer has this session (deleted, or a store that was reset):
            # nothing to archive; drop the entry and let the caller forget the session.
            if self.log:
                self.log.info("commit_session_gone", session=entry["session"])
            self.remove(seq)
            if on_not_found is not None:
                on_not_found(entry)
            return
        result.commits.append(answer)
        now = self.clock()

        def committed(doc: State) -> None:
            doc["commit_count"] = int(doc.get("commit_count") or 0) + 1
            doc["last_commit_at"] = now
            doc["pending_tokens"] = 0

        self.remove(seq, committed)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
