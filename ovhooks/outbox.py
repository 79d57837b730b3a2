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

import os
import time

from ovhooks.backend.errors import BackendError
from ovhooks.fsutil import FileLock, read_json, write_atomic, write_json_atomic

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
        os.makedirs(dead, mode=0o700, exist_ok=True)
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
        # Progress through a multi-batch entry lives in a tiny sidecar file, so a large
        # capture (an import, a long outage) is not rewritten after every accepted batch.
        progress_path = path + ".progress"
        done = _read_progress(progress_path)
        all_batches = list(entry.get("batches", []))
        for index in range(done, len(all_batches)):
            answer = backend.append_messages(entry["session"], all_batches[index])
            result.messages_sent += len(all_batches[index])
            tokens = answer.get("pending_tokens")
            if isinstance(tokens, int | float):
                result.pending_tokens = int(tokens)
            if index + 1 < len(all_batches):
                write_atomic(progress_path, str(index + 1).encode())
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


def _read_progress(path: str) -> int:
    try:
        with open(path, "rb") as fh:
            return max(0, int(fh.read().strip() or b"0"))
    except (OSError, ValueError):
        return 0


def _permanent(exc: BackendError, entry: Entry) -> bool:
    """True for requests the server will never accept as they are (poison entries)."""
    if exc.kind != "http" or exc.retryable:
        return False
    if exc.status in (401, 403):
        return False  # a key problem: the user can fix it, and then the entry should go
    return exc.status in (400, 413, 422) or (exc.status == 404 and entry["op"] == "append")
