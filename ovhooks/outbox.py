"""The durable per-session queue: every write is on disk before any network call.

The queue is a list inside the session document (``layout.py``), drained strictly in order:

- ``append``: the messages of one capture, kept in a blob file written once under a name
  that is never reused. The entry says how many of them the server has taken (``sent``) and
  which batch is in flight. A capture queues its entry and moves the transcript cursor, the
  turn uids and Claude's synthetic tail in ONE atomic write of the document, so whichever
  drainer sends the entry (worker, flush, SessionStart replay, sweep, import) moves nothing
  else: the cursor already says those turns are captured.
- ``commit``: archive the session and extract memories, queued behind the appends.

Sending a batch is a three-step protocol on the document: mark it in flight (with the time),
send, record the answer. A batch left in flight by a crash or a client timeout is resent only
when the first attempt has certainly failed: the server answered with an error, or the
session's newest messages are not the batch and the server's processing window has passed
(the local store applies a batch in one SQL transaction before answering, so its answer is
final at once). Until then the drain stops there: one write in flight per session.

A request the server answers as malformed (400/413/422) will never pass: the batch is split
and sent one message at a time, and the message refused alone is set aside under
``outbox/dead/`` (reported once), so the records behind it still go.
"""

from __future__ import annotations

import json
import os
import time

from ovhooks import layout
from ovhooks.backend.errors import BackendError
from ovhooks.fsutil import ensure_dir, read_json, remove_stale_tmp, write_json_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.layout import QueueEntry, State
    from ovhooks.log import Log
    from ovhooks.plan import Plan
    from ovhooks.state import StateStore

MAX_BATCH = 100
# How long a request the client gave up on may still be applied by the server. Past it, a
# batch the server does not show was not taken and is sent again.
DEFAULT_INFLIGHT_WINDOW_S = 120.0


def batches(messages: list[dict[str, Any]], size: int = MAX_BATCH) -> list[list[dict[str, Any]]]:
    return [messages[i : i + size] for i in range(0, len(messages), size)]


class InflightError(Exception):
    """A batch may still land on the server: nothing more is sent for the session yet."""

    retryable = True
    kind = "inflight"
    status = None
    not_found = False


class DrainResult:
    __slots__ = ("commits", "dead", "error", "messages_sent", "pending_tokens", "remaining")

    def __init__(self) -> None:
        self.messages_sent = 0
        self.commits: list[dict[str, Any]] = []
        self.pending_tokens: int | None = None
        self.error: BackendError | InflightError | None = None
        self.dead = 0
        self.remaining = 0


def find(doc: State, seq: int) -> QueueEntry | None:
    for entry in doc.get("queue") or []:
        if entry.get("seq") == seq:
            return entry
    return None


class Outbox:
    def __init__(
        self,
        store: StateStore,
        key: str,
        *,
        plan: Plan | None = None,
        log: Log | None = None,
        inflight_window_s: float = DEFAULT_INFLIGHT_WINDOW_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.key = key
        self.state_dir = store.state_dir
        self.dir = layout.outbox_dir(store.state_dir, key)
        self.plan = plan
        self.log = log
        self.window_s = inflight_window_s
        self.clock = clock
        self._planned_blobs: dict[str, list[dict[str, Any]]] = {}

    # --- queue ------------------------------------------------------------------------------
    def entries(self) -> list[QueueEntry]:
        doc = self.store.load(self.key)
        return list(doc.get("queue") or []) if doc else []

    def __len__(self) -> int:
        return len(self.entries())

    def write_blob(self, session: str, messages: list[dict[str, Any]]) -> str:
        """Store a capture's messages under a fresh name; returns the name."""
        name = f"{time.time_ns():x}-{os.getpid()}-{os.urandom(4).hex()}.json"
        if self.plan is not None:
            self._planned_blobs[name] = messages
            self.plan.note(f"queue {len(messages)} message(s) for {session}")
            return name
        write_json_atomic(os.path.join(self.dir, name), {"session": session, "messages": messages})
        return name

    def drop_blob(self, name: str) -> None:
        if self.plan is not None:
            self._planned_blobs.pop(name, None)
            return
        try:
            os.unlink(os.path.join(self.dir, name))
        except OSError:
            pass

    def read_blob(self, name: str) -> list[dict[str, Any]]:
        if name in self._planned_blobs:
            return self._planned_blobs[name]
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
            from ovhooks.state import new_state

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
        if self.plan is not None:
            return
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
        """Move entries an older ovhooks queued as files into the document's queue.

        Their cursor used to be saved after the entry; the document takes whichever is
        further, in the same write that adopts the entry.
        """
        try:
            names = sorted(n for n in os.listdir(self.dir) if layout.is_legacy_entry(n))
        except OSError:
            return
        for name in names:
            path = os.path.join(self.dir, name)
            try:
                old = read_json(path)
            except (OSError, ValueError):
                old = None
            if isinstance(old, dict):
                self._adopt(old, _legacy_done(path + ".progress"))
            _unlink(path + ".progress")
            _unlink(path)

    def _adopt(self, old: dict[str, Any], done: int) -> None:
        now = self.clock()
        session = str(old.get("session") or self.key)
        fields: dict[str, Any]
        if old.get("op") == "append":
            old_batches = old.get("batches") or []
            flat = [m for b in old_batches for m in b]
            sent = sum(len(b) for b in old_batches[:done])
            fields = {"blob": self.write_blob(session, flat), "count": len(flat), "sent": sent}
        else:
            keep = int(old.get("keep_recent_count") or 0)
            fields = {"keep_recent_count": keep, "reason": str(old.get("reason") or "")}

        def adopt(doc: State) -> None:
            if old.get("op") == "append":
                cursor = old.get("cursor") or {}
                mine: Any = doc.get("cursor") or {}
                if int(cursor.get("offset") or 0) > int(mine.get("offset") or 0):
                    moved: Any = {**mine, **cursor}
                    doc["cursor"] = moved
                known = list(doc.get("recent_uids") or [])
                doc["recent_uids"] = known + [u for u in old.get("uids") or [] if u not in known]
            self.append_entry(doc, str(old.get("op")), session, now, **fields)

        self.store.update(self.key, adopt)

    # --- drain ------------------------------------------------------------------------------
    def drain(
        self,
        backend: Backend,
        *,
        on_commit_not_found: Callable[[QueueEntry], None] | None = None,
    ) -> DrainResult:
        """Send queued entries in order until the queue is empty or a request fails."""
        result = DrainResult()
        if self.plan is not None:
            for entry in self.entries():
                self._plan_entry(entry)
            return result
        self.tidy()
        while True:
            queue = self.entries()
            if not queue:
                break
            entry = queue[0]
            try:
                if entry.get("op") == "append":
                    self._send_append(entry, backend, result)
                else:
                    self._send_commit(entry, backend, result, on_commit_not_found)
            except (BackendError, InflightError) as exc:
                result.error = exc
                break
        result.remaining = len(self)
        return result

    def _plan_entry(self, entry: QueueEntry) -> None:
        assert self.plan is not None
        sid = entry["session"]
        if entry["op"] == "append":
            try:
                messages = self.read_blob(str(entry.get("blob")))
            except (OSError, ValueError):
                return
            for batch in batches(messages[int(entry.get("sent") or 0) :]):
                path = f"/api/v1/sessions/{sid}/messages/batch"
                self.plan.write_request("POST", path, {"messages": batch})
        else:
            keep = entry.get("keep_recent_count") or 0
            body = {"keep_recent_count": keep} if keep else {}
            self.plan.write_request("POST", f"/api/v1/sessions/{sid}/commit", body)

    def _update_entry(self, seq: int, change: Callable[[QueueEntry, State], None]) -> None:
        def apply(doc: State) -> None:
            entry = find(doc, seq)
            if entry is not None:
                change(entry, doc)

        self.store.update(self.key, apply)

    def _patch(self, seq: int, **values: Any) -> None:
        def change(entry: QueueEntry, _doc: State) -> None:
            raw: Any = entry
            raw.update(values)

        self._update_entry(seq, change)

    def _remove(self, seq: int, change: Callable[[State], None] | None = None) -> None:
        def apply(doc: State) -> None:
            doc["queue"] = [e for e in doc.get("queue") or [] if e.get("seq") != seq]
            if change is not None:
                change(doc)

        self.store.update(self.key, apply)

    def _send_append(self, entry: QueueEntry, backend: Backend, result: DrainResult) -> None:
        seq = int(entry["seq"])
        blob = str(entry.get("blob"))
        try:
            messages = self.read_blob(blob)
        except (OSError, ValueError) as exc:
            # The blob was written (fsync'd) before its entry; losing it means the disk lost
            # data. Nothing can be sent: say so and keep the queue moving.
            if self.log:
                self.log.error(
                    "outbox_blob_unreadable", session=self.key, blob=blob, error=str(exc)
                )
            self._remove(seq)
            return
        session = str(entry["session"])
        sent = int(entry.get("sent") or 0)
        inflight = entry.get("inflight")
        if inflight:
            sent = self._settle(entry, inflight, messages, backend, sent)
        split_until = int(entry.get("split_until") or 0)
        while sent < len(messages):
            size = 1 if sent < split_until else MAX_BATCH
            batch = messages[sent : sent + size]
            started = self.clock()
            self._patch(seq, inflight={"start": sent, "count": len(batch), "at": started})
            try:
                answer = backend.append_messages(session, batch)
            except BackendError as exc:
                if _malformed(exc):
                    if len(batch) > 1:
                        split_until = sent + len(batch)
                        self._patch(seq, inflight=None, split_until=split_until)
                    else:
                        self._set_aside(entry, batch[0], sent, exc, result)
                        sent += 1
                    continue
                self._after_failure(seq, exc)
                raise
            sent += len(batch)
            tokens = answer.get("pending_tokens")
            if isinstance(tokens, int | float):
                result.pending_tokens = int(tokens)
            result.messages_sent += len(batch)

            def accepted(
                e: QueueEntry, doc: State, s: int = sent, n: int = len(batch), t: Any = tokens
            ) -> None:
                e["sent"] = s
                e["inflight"] = None
                doc["messages_sent"] = int(doc.get("messages_sent") or 0) + n
                if isinstance(t, int | float):
                    doc["pending_tokens"] = int(t)

            self._update_entry(seq, accepted)
        self._remove(seq)
        self.drop_blob(blob)

    def _after_failure(self, seq: int, exc: BackendError) -> None:
        """Record what a failed request means for the batch in flight."""
        if exc.kind == "unreachable":
            # never reached the server (refused, DNS): certainly not taken
            self._patch(seq, inflight=None)
        elif exc.kind == "http":
            # the server answered: its processing of the request is over
            def answered(e: QueueEntry, _d: State) -> None:
                inflight = e.get("inflight")
                if inflight:
                    inflight["answered"] = True

            self._update_entry(seq, answered)
        # a timeout or a garbled answer: the batch may still land; the mark stays

    def _settle(
        self,
        entry: QueueEntry,
        inflight: Any,
        messages: list[dict[str, Any]],
        backend: Backend,
        sent: int,
    ) -> int:
        """Decide a batch left in flight: taken, certainly not taken, or not yet known."""
        seq = int(entry["seq"])
        start = int(inflight.get("start") or 0)
        count = int(inflight.get("count") or 0)
        batch = messages[start : start + count]
        applied = already_applied(backend, str(entry["session"]), batch)
        if applied:
            if self.log:
                self.log.info("outbox_inflight_was_applied", session=self.key, start=start)

            def taken(e: QueueEntry, doc: State) -> None:
                e["sent"] = start + count
                e["inflight"] = None
                doc["messages_sent"] = int(doc.get("messages_sent") or 0) + count

            self._update_entry(seq, taken)
            return start + count
        final = bool(inflight.get("answered")) or backend.name == "local"
        waited = self.clock() - float(inflight.get("at") or 0)
        if applied is None or (not final and waited < self.window_s):
            raise InflightError(
                f"a batch sent {waited:.0f} s ago may still be applied by the server; "
                "it is checked again before anything else is sent"
            )
        self._patch(seq, inflight=None)
        return start

    def _set_aside(
        self,
        entry: QueueEntry,
        message: dict[str, Any],
        index: int,
        exc: BackendError,
        result: DrainResult,
    ) -> None:
        """Keep a record the server refused alone on disk, count it, and move past it."""
        seq = int(entry["seq"])
        dead = layout.dead_dir(self.state_dir, self.key)
        ensure_dir(dead)
        write_json_atomic(
            os.path.join(dead, f"{seq:06d}-{index:06d}-{entry.get('blob')}"),
            {"session": entry["session"], "error": str(exc), "message": message},
        )
        if self.log:
            self.log.error("outbox_record_set_aside", session=self.key, error=str(exc))
        result.dead += 1

        def set_aside(e: QueueEntry, doc: State) -> None:
            e["sent"] = index + 1
            e["inflight"] = None
            doc["set_aside"] = int(doc.get("set_aside") or 0) + 1

        self._update_entry(seq, set_aside)

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
            self._remove(seq)
            if on_not_found is not None:
                on_not_found(entry)
            return
        result.commits.append(answer)
        now = self.clock()

        def committed(doc: State) -> None:
            doc["commit_count"] = int(doc.get("commit_count") or 0) + 1
            doc["last_commit_at"] = now
            doc["pending_tokens"] = 0

        self._remove(seq, committed)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _legacy_done(path: str) -> int:
    """Batches an old-format sidecar says were accepted (in flight counts as not)."""
    try:
        with open(path, "rb") as fh:
            doc = json.loads(fh.read() or b"{}")
    except FileNotFoundError:
        return 0
    if isinstance(doc, int):
        return max(0, doc)
    done = doc.get("done") if isinstance(doc, dict) else None
    return max(0, done) if isinstance(done, int) else 0


def _message_key(message: dict[str, Any]) -> tuple[str, str]:
    parts = message.get("parts") or []
    text = " ".join(
        str(p.get("text", "")) if p.get("type") == "text" else str(p.get("tool_id") or "")
        for p in parts
        if isinstance(p, dict)
    )
    return str(message.get("role")), " ".join((text or str(message.get("content") or "")).split())


def already_applied(backend: Backend, session: str, batch: list[dict[str, Any]]) -> bool | None:
    """Whether the session's newest messages are this batch; None when the server can't say.

    One write is in flight per session at a time, so if the batch was applied it is the
    newest thing the session holds.
    """
    try:
        live = backend.session_context(session, 1_000_000).get("messages") or []
    except BackendError as exc:
        if exc.not_found:
            return False  # no session yet: nothing of it was applied
        return None
    except Exception:
        return None
    if not isinstance(live, list) or len(live) < len(batch):
        return False
    tail = [_message_key(m) for m in live[-len(batch) :] if isinstance(m, dict)]
    return tail == [_message_key(m) for m in batch]


def _malformed(exc: BackendError) -> bool:
    """A request the server will never accept as it is (a poison record)."""
    if exc.kind != "http" or exc.retryable:
        return False
    return exc.status in (400, 413, 422)
