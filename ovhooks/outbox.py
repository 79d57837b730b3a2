"""The durable per-session outbox: every write is on disk before any network call.

One directory per OpenViking session holds numbered entries, drained strictly in order:

- ``append``: the messages of one capture, split into batches of at most 100 (the server's
  limit), plus the transcript cursor and turn uids that capture consumed. Written as one
  file so a crash never leaves half a capture queued. After each batch the server accepts,
  the entry is rewritten without it, so a retry never re-sends an accepted batch (the window
  between the server's answer and that rewrite is the only one left; see ``drain``).
- ``commit``: archive the session and extract memories. Queued behind the appends, so a
  commit never overtakes the turns it should include.

A failure that may pass (server down, timeout, 5xx, 429) stops the drain and leaves the entry
for the next hook; a request the server will never accept (400/413/422) moves the entry to
``dead/`` so it cannot block the queue forever, and is logged.
"""

from __future__ import annotations

import json
import os
import time

from ovhooks.backend.errors import BackendError
from ovhooks.fsutil import FileLock, ensure_dir, read_json, write_atomic, write_json_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.log import Log
    from ovhooks.plan import Plan

    Entry = dict[str, Any]

MAX_BATCH = 100


def batches(messages: list[dict[str, Any]], size: int = MAX_BATCH) -> list[list[dict[str, Any]]]:
    return [messages[i : i + size] for i in range(0, len(messages), size)]


class DrainResult:
    __slots__ = ("commits", "dead", "error", "messages_sent", "pending_tokens", "remaining")

    def __init__(self) -> None:
        self.messages_sent = 0
        self.commits: list[dict[str, Any]] = []
        self.pending_tokens: int | None = None
        self.error: BackendError | None = None
        self.dead = 0
        self.remaining = 0


class Outbox:
    def __init__(
        self, state_dir: str, key: str, *, plan: Plan | None = None, log: Log | None = None
    ) -> None:
        self.key = key
        self.dir = os.path.join(state_dir, "outbox", key)
        self.plan = plan
        self.log = log
        self._planned: list[Entry] = []

    # --- queue ------------------------------------------------------------------------------
    def _names(self) -> list[str]:
        try:
            return sorted(n for n in os.listdir(self.dir) if n.endswith(".json"))
        except FileNotFoundError:
            return []

    def entries(self) -> list[tuple[str, Entry]]:
        """Pending entries in order, as (path, entry). Unreadable files are moved to dead/."""
        out: list[tuple[str, Entry]] = []
        for name in self._names():
            path = os.path.join(self.dir, name)
            try:
                doc = read_json(path)
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as exc:
                self._bury(path, f"unreadable: {exc}")
                continue
            if isinstance(doc, dict) and doc.get("op") in ("append", "commit"):
                out.append((path, doc))
            else:
                self._bury(path, "not an outbox entry")
        out.extend(("(planned)", e) for e in self._planned)
        return out

    def __len__(self) -> int:
        return len(self._names()) + len(self._planned)

    def enqueue(self, entry: Entry) -> None:
        entry.setdefault("created_at", time.time())
        if self.plan is not None:
            self._planned.append(entry)
            if entry["op"] == "append":
                count = sum(len(b) for b in entry.get("batches", []))
                self.plan.note(f"queue {count} message(s) for {entry['session']}")
            else:
                self.plan.note(f"queue a commit of {entry['session']} ({entry.get('reason', '')})")
            return
        with FileLock(os.path.join(self.dir, ".lock"), 10.0):
            names = self._names()
            last = int(names[-1].split("-", 1)[0]) if names else 0
            name = f"{last + 1:010d}-{entry['op']}.json"
            write_json_atomic(os.path.join(self.dir, name), entry)

    def _bury(self, path: str, reason: str) -> None:
        if self.log:
            self.log.error("outbox_dead_entry", session=self.key, path=path, reason=reason)
        if self.plan is not None:
            return
        try:
            os.unlink(path + ".progress")
        except OSError:
            pass
        dead = os.path.join(os.path.dirname(self.dir), "dead", self.key)
        ensure_dir(dead)
        try:
            os.replace(path, os.path.join(dead, f"{int(time.time())}-{os.path.basename(path)}"))
        except OSError:
            pass

    # --- drain ------------------------------------------------------------------------------
    def drain(
        self,
        backend: Backend,
        *,
        on_commit_not_found: Callable[[Entry], None] | None = None,
    ) -> DrainResult:
        """Send pending entries in order until the queue is empty or a request fails."""
        result = DrainResult()
        for path, entry in self.entries():
            if self.plan is not None:
                self._plan_entry(entry)
                continue
            try:
                if entry["op"] == "append":
                    self._send_append(path, entry, backend, result)
                else:
                    self._send_commit(path, entry, backend, result, on_commit_not_found)
            except BackendError as exc:
                if _permanent(exc, entry):
                    self._bury(path, str(exc))
                    result.dead += 1
                    continue
                result.error = exc
                break
        result.remaining = len(self)
        return result

    def _plan_entry(self, entry: Entry) -> None:
        assert self.plan is not None
        sid = entry["session"]
        if entry["op"] == "append":
            for batch in entry.get("batches", []):
                path = f"/api/v1/sessions/{sid}/messages/batch"
                self.plan.write_request("POST", path, {"messages": batch})
        else:
            body = (
                {"keep_recent_count": entry["keep_recent_count"]}
                if entry.get("keep_recent_count")
                else {}
            )
            self.plan.write_request("POST", f"/api/v1/sessions/{sid}/commit", body)

    def _send_append(self, path: str, entry: Entry, backend: Backend, result: DrainResult) -> None:
        # Progress through an entry lives in a tiny sidecar file: a large capture (an import, a
        # long outage) is not rewritten after every accepted batch, and the batch in flight is
        # marked before it is sent. A crash after the server took it but before we recorded
        # that leaves the mark, and the next drain asks the server instead of sending it again.
        progress_path = path + ".progress"
        done, inflight = _read_progress(progress_path)
        all_batches = list(entry.get("batches", []))
        session = entry["session"]
        if (
            inflight is not None
            and inflight == done < len(all_batches)
            and _already_applied(backend, session, all_batches[done])
        ):
            if self.log:
                self.log.info("outbox_inflight_was_applied", session=session, batch=done)
            done += 1
            write_atomic(progress_path, _progress(done, None))
        for index in range(done, len(all_batches)):
            write_atomic(progress_path, _progress(index, index))
            try:
                answer = backend.append_messages(session, all_batches[index])
            except BackendError as exc:
                # Refused connections and error answers mean the batch was not taken; only
                # a timeout or a garbled answer leaves the question open.
                if exc.kind in ("unreachable", "http"):
                    write_atomic(progress_path, _progress(index, None))
                raise
            write_atomic(progress_path, _progress(index + 1, None))
            result.messages_sent += len(all_batches[index])
            tokens = answer.get("pending_tokens")
            if isinstance(tokens, int | float):
                result.pending_tokens = int(tokens)
        os.unlink(path)
        try:
            os.unlink(progress_path)
        except FileNotFoundError:
            pass

    def _send_commit(
        self,
        path: str,
        entry: Entry,
        backend: Backend,
        result: DrainResult,
        on_not_found: Callable[[Entry], None] | None,
    ) -> None:
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
            os.unlink(path)
            if on_not_found is not None:
                on_not_found(entry)
            return
        result.commits.append(answer)
        os.unlink(path)


def _progress(done: int, inflight: int | None) -> bytes:
    return json.dumps({"done": done, "inflight": inflight}).encode()


def _read_progress(path: str) -> tuple[int, int | None]:
    """(batches accepted, batch in flight or None) from the sidecar file."""
    try:
        with open(path, "rb") as fh:
            doc = json.loads(fh.read() or b"{}")
    except (OSError, ValueError):
        return 0, None
    if isinstance(doc, int):
        return max(0, doc), None
    if not isinstance(doc, dict):
        return 0, None
    done = doc.get("done")
    inflight = doc.get("inflight")
    return (
        max(0, done) if isinstance(done, int) else 0,
        inflight if isinstance(inflight, int) else None,
    )


def _message_key(message: dict[str, Any]) -> tuple[str, str]:
    parts = message.get("parts") or []
    text = " ".join(
        str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text"
    )
    return str(message.get("role")), " ".join((text or str(message.get("content") or "")).split())


def _already_applied(backend: Backend, session: str, batch: list[dict[str, Any]]) -> bool:
    """Whether the session's newest messages are this batch (sent, then a crash)."""
    try:
        live = backend.session_context(session, 1_000_000).get("messages") or []
    except Exception:  # unknown: sending again risks a duplicate, not a loss
        return False
    if not isinstance(live, list) or len(live) < len(batch):
        return False
    tail = [_message_key(m) for m in live[-len(batch) :] if isinstance(m, dict)]
    return tail == [_message_key(m) for m in batch]


def _permanent(exc: BackendError, entry: Entry) -> bool:
    """True for requests the server will never accept as they are (poison entries)."""
    if exc.kind != "http" or exc.retryable:
        return False
    if exc.status in (401, 403):
        return False  # a key problem: the user can fix it, and then the entry should go
    return exc.status in (400, 413, 422) or (exc.status == 404 and entry["op"] == "append")
