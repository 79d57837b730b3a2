"""The worker: capture new turns into the outbox, then drain the outbox, one session at a time.

Hooks that write (Stop, PreCompact, SessionEnd, SubagentStop, and SessionStart's commits of
other sessions) hand a job to a detached worker and return at once (interface §5.5). For one
session, workers run strictly one after another: each holds ``locks/<key>.worker`` for its
whole run, and a second worker waits for it (up to ``worker_lock_wait_s``) instead of
reading the same cursor and sending the same turns (anchor bug #5).

Order inside one run: reconcile the cursor with queued entries, read what the transcript
gained, queue it, update the state, queue a requested commit, drain. Every network write
happens in the drain, after the data is on disk.
"""

from __future__ import annotations

import os
import time

from ovhooks.backend.errors import BackendError
from ovhooks.fsutil import FileLock
from ovhooks.outbox import Outbox, batches
from ovhooks.state import StateStore, new_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.config import Settings
    from ovhooks.log import Log
    from ovhooks.model import Turn
    from ovhooks.plan import Plan

    Job = dict[str, Any]

# How many captured turn uids a state remembers, to recognise turns seen before when a
# transcript is rewritten. Bounded so the state file stays small.
RECENT_UIDS = 4000


def _turn_reader(host: str) -> Callable[[list[tuple[int, dict[str, Any]]]], list[Turn]]:
    if host == "claude":
        from ovhooks.transcripts.claude import records_to_turns as claude_turns

        return claude_turns
    from ovhooks.transcripts.codex import records_to_turns as codex_turns

    return codex_turns


class SessionWorker:
    """Runs jobs for sessions against one backend."""

    def __init__(
        self,
        settings: Settings,
        backend_for: Callable[[str], Backend],
        *,
        log: Log,
        plan: Plan | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self.backend_for = backend_for
        self.log = log
        self.plan = plan
        self.clock = clock
        self.store = StateStore(settings.state_dir, plan=plan, log=log)

    def run(self, job: Job) -> dict[str, Any]:
        """Run one job under the session's worker lock; returns a summary for logs/tests."""
        key = str(job["key"])
        lock = FileLock(os.path.join(self.settings.state_dir, "locks", f"{key}.worker"))
        if self.plan is None and not lock.acquire(self.settings.worker_lock_wait_s):
            self.log.error("worker_lock_timeout", session=key)
            return {"key": key, "skipped": "lock busy"}
        try:
            return self._run_locked(job)
        finally:
            if self.plan is None:
                lock.release()

    # --- the steps --------------------------------------------------------------------------
    def _run_locked(self, job: Job) -> dict[str, Any]:
        key = str(job["key"])
        now = self.clock()
        outbox = Outbox(self.settings.state_dir, key, plan=self.plan, log=self.log)
        summary: dict[str, Any] = {"key": key, "queued": 0, "sent": 0, "commits": 0}

        def create() -> dict[str, Any]:
            doc = new_state(
                key, str(job.get("host") or ""), str(job.get("host_session_id") or ""), now
            )
            doc["registered_at"] = None
            doc["parent"] = job.get("parent")
            return doc

        state = self.store.load(key)
        if state is None:
            state = self.store.update(key, lambda _s: None, create=create) or create()
        if job.get("capture"):
            summary["queued"] = self._capture(job, state, outbox, now)
        if job.get("commit"):
            self._queue_commit(key, outbox, str(job["commit"]), job.get("end"))
        drained = self._drain(key, outbox, summary)
        threshold = self.settings.commit_token_threshold
        if drained is not None and threshold and drained >= threshold:
            self._queue_commit(key, outbox, f"{drained} pending tokens", None, keep_recent=True)
            self._drain(key, outbox, summary)
        return summary

    def _capture(self, job: Job, state: dict[str, Any], outbox: Outbox, now: float) -> int:
        from ovhooks.capture import CaptureOptions, build_messages
        from ovhooks.transcripts.reader import read_new

        key = str(job["key"])
        path = str(job.get("transcript_path") or state.get("transcript_path") or "")
        if not path:
            return 0
        cursor = dict(state.get("cursor") or {})
        seen = set(state.get("recent_uids") or [])
        # Reconcile with queued appends: a crash between queueing and saving the state must
        # not make the next run read (and send) the same lines again.
        for _path, entry in outbox.entries():
            if entry.get("op") == "append":
                seen.update(entry.get("uids") or [])
                queued_cursor = entry.get("cursor") or {}
                if int(queued_cursor.get("offset") or 0) > int(cursor.get("offset") or 0):
                    cursor = dict(queued_cursor)
        wait_s = float(job.get("wait_for_transcript_s") or 0)
        deadline = time.monotonic() + wait_s
        while wait_s and not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            read = read_new(path, cursor)
        except FileNotFoundError:
            # normal at a session's first hook: the host creates the file a moment later
            self.log.info("transcript_missing", session=key, path=path)
            return 0
        except OSError as exc:
            self.log.error("transcript_unreadable", session=key, path=path, error=str(exc))
            return 0
        if read.rewritten:
            self.log.info("transcript_rewritten", session=key)
        turns = _turn_reader(str(state.get("host") or job.get("host")))(read.records)
        fresh = [t for t in turns if t.uid not in seen]
        tail_text = str(job.get("last_assistant") or "")
        synthetic_tail = str(state.get("synthetic_tail") or "")
        last_captured = str(state.get("last_assistant_text") or "")
        fresh, synthetic_tail = _reconcile_last_assistant(
            fresh, tail_text, synthetic_tail, turns, last_captured
        )
        options = CaptureOptions.from_settings(self.settings)
        captured = build_messages(fresh, options, held=state.get("held") or [])
        messages = captured.messages
        peer = str(job.get("peer") or state.get("peer") or "")
        if peer:
            for message in messages:
                message.setdefault("peer_id", peer)
        uids = [t.uid for t in fresh]
        ov_session = str(state.get("ov_session_id") or key)
        if messages:
            outbox.enqueue(
                {
                    "op": "append",
                    "session": ov_session,
                    "batches": batches(messages),
                    "cursor": read.cursor,
                    "uids": uids,
                }
            )
        stats = captured.stats
        if any(k.startswith("redacted") and v for k, v in stats.items()):
            self.log.info(
                "capture_redacted",
                session=key,
                **{k: v for k, v in stats.items() if k.startswith("redacted") and v},
            )

        def change(doc: dict[str, Any]) -> None:
            doc["cursor"] = {**read.cursor, "turns": int(cursor.get("turns") or 0) + len(turns)}
            doc["recent_uids"] = (list(doc.get("recent_uids") or []) + uids)[-RECENT_UIDS:]
            doc["held"] = captured.held
            doc["synthetic_tail"] = synthetic_tail
            if turns:
                last = turns[-1]
                doc["last_assistant_text"] = (
                    _fold(last.text)[-4000:] if last.role == "assistant" else ""
                )
            doc["transcript_path"] = path
            if job.get("cwd"):
                doc["cwd"] = job["cwd"]
            if peer:
                doc["peer"] = peer
            if fresh:
                doc["last_activity_at"] = now
                doc["turns_captured"] = int(doc.get("turns_captured") or 0) + len(fresh)
            doc["uncommitted"] = int(doc.get("uncommitted") or 0) + len(messages)
            if job.get("error_notified"):
                doc["error_notified"] = True

        self.store.update(key, change)
        return len(messages)

    def _queue_commit(
        self, key: str, outbox: Outbox, reason: str, end: object, *, keep_recent: bool = False
    ) -> None:
        state = self.store.load(key) or {}
        has_pending_append = any(e.get("op") == "append" for _p, e in outbox.entries())
        if int(state.get("uncommitted") or 0) == 0 and not has_pending_append:
            if end is not None:
                self.store.update(key, lambda d: d.update(ended=True, end_reason=str(end)))
            return  # nothing new since the last commit: an empty commit would only be skipped
        keep = self.settings.commit_keep_recent if keep_recent else 0
        outbox.enqueue(
            {
                "op": "commit",
                "session": str(state.get("ov_session_id") or key),
                "keep_recent_count": keep,
                "reason": reason,
            }
        )

        def change(doc: dict[str, Any]) -> None:
            doc["uncommitted"] = 0
            doc["commit_requested_at"] = self.clock()
            if end is not None:
                doc["ended"] = True
                doc["end_reason"] = str(end)

        self.store.update(key, change)

    def _drain(self, key: str, outbox: Outbox, summary: dict[str, Any]) -> int | None:
        if not len(outbox):
            return None
        state = self.store.load(key) or {}
        backend = self.backend_for(str(state.get("peer") or ""))
        gone: list[bool] = []
        result = outbox.drain(backend, on_commit_not_found=lambda _e: gone.append(True))
        summary["sent"] += result.messages_sent
        summary["commits"] += len(result.commits)
        if gone:
            # interface: a 404 for a session the server no longer has drops that one state
            self.store.delete(key)
            return None
        now = self.clock()

        def change(doc: dict[str, Any]) -> None:
            doc["messages_sent"] = int(doc.get("messages_sent") or 0) + result.messages_sent
            if result.pending_tokens is not None:
                doc["pending_tokens"] = result.pending_tokens
            if result.commits:
                doc["commit_count"] = int(doc.get("commit_count") or 0) + len(result.commits)
                doc["last_commit_at"] = now
                doc["pending_tokens"] = 0
            if result.error is not None:
                doc["last_error"] = {
                    "at": now,
                    "error": str(result.error),
                    "queued": result.remaining,
                }
            elif doc.get("last_error"):
                doc["last_error"] = None
                doc["error_notified"] = False

        self.store.update(key, change)
        if result.error is not None:
            self.log.error(
                "drain_failed", session=key, error=str(result.error), queued=result.remaining
            )
            summary["error"] = str(result.error)
        return result.pending_tokens


def _reconcile_last_assistant(
    fresh: list[Turn],
    tail_text: str,
    synthetic_tail: str,
    all_turns: Sequence[Turn],
    last_captured: str = "",
) -> tuple[list[Turn], str]:
    """Capture the host's final reply exactly once, even before it reaches the transcript.

    Claude writes its transcript asynchronously: at Stop, ``last_assistant_message`` may not
    be in the file yet. We then send it as a synthetic turn and remember its text; when the
    real record shows up in a later read, the already-sent text is cut from it (its tool
    calls are kept). ``last_captured`` is the last assistant text an earlier run read from
    the file, so a reply that run already sent (e.g. SessionEnd's worker got the lock first)
    is not added again.
    """
    from ovhooks.model import Turn

    out = list(fresh)
    if synthetic_tail:
        for i, turn in enumerate(out):
            if turn.role != "assistant":
                continue
            text = _fold(turn.text)
            if not text.endswith(synthetic_tail):
                continue
            if text == synthetic_tail and not turn.tools:
                out.pop(i)
            else:
                cut = _strip_tail(text, synthetic_tail)
                out[i] = Turn("assistant", cut, turn.tools, timestamp=turn.timestamp, uid=turn.uid)
            synthetic_tail = ""
            break
    tail = _fold(tail_text)
    if tail:
        in_file = any(t.role == "assistant" and _fold(t.text).endswith(tail) for t in all_turns)
        already = bool(last_captured) and last_captured.endswith(tail)
        if not in_file and not already and tail != synthetic_tail:
            import zlib

            uid = f"synthetic-{zlib.crc32(tail.encode('utf-8')):08x}"
            out.append(Turn("assistant", tail_text, uid=uid, synthetic=True))
            synthetic_tail = tail
    return out, synthetic_tail


def _strip_tail(text: str, normalized_tail: str) -> str:
    """``text`` without its trailing words equal to ``normalized_tail`` (whitespace-folded)."""
    words = text.split()
    tail_words = normalized_tail.split()
    if len(tail_words) <= len(words) and words[-len(tail_words) :] == tail_words:
        return " ".join(words[: len(words) - len(tail_words)])
    return text


def _norm(text: str) -> str:
    return " ".join(text.split())


def _fold(text: str) -> str:
    """Whitespace-folded and scrubbed: how assistant text is kept in the session state (at
    rest, so never with its secrets) and compared with what the transcript holds."""
    from ovhooks.capture.scrub import scrub_text

    return _norm(scrub_text(text)) if text else ""


# A worker commits sessions left idle past the TTL at most this often, so sessions are
# committed even when no new session ever starts on the machine (anchor #14).
SWEEP_INTERVAL_S = 600.0


def _background_sweep(
    settings: Settings, store: StateStore, busy: set[str], now: float
) -> list[Job]:
    """Commit jobs for idle sessions, if a sweep is due (the stamp file rate-limits it)."""
    from ovhooks.fsutil import write_atomic
    from ovhooks.lifecycle import commit_job, idle_sessions, sweep_due

    stamp = os.path.join(settings.state_dir, "last-sweep")
    try:
        last: float | None = os.stat(stamp).st_mtime
    except OSError:
        last = None
    if not sweep_due(last, now=now, interval_s=SWEEP_INTERVAL_S):
        return []
    try:
        write_atomic(stamp, b"", durable=False)
        os.utime(stamp, (now, now))
    except OSError:
        return []
    states = store.all()
    by_key = {str(s["key"]): s for s in states}
    return [
        commit_job(by_key[key], "idle (background sweep)", capture=settings.capture)
        for key in idle_sessions(states, now=now, idle_ttl_s=settings.idle_ttl_s)
        if key not in busy
    ]


def run_jobs(
    settings: Settings,
    jobs: Sequence[Job],
    *,
    log: Log,
    plan: Plan | None = None,
    clock: Callable[[], float] = time.time,
) -> list[dict[str, Any]]:
    """Run jobs in order with a backend chosen by the settings."""
    from ovhooks.backend.factory import make_backend

    def backend_for(peer: str) -> Backend:
        backend = make_backend(settings, peer=peer)
        if plan is not None:
            from ovhooks.backend.factory import DryRunBackend

            return DryRunBackend(backend, plan)
        return backend

    worker = SessionWorker(settings, backend_for, log=log, plan=plan, clock=clock)
    results = []
    if plan is None:
        jobs = [
            *jobs,
            *_background_sweep(settings, worker.store, {str(j["key"]) for j in jobs}, clock()),
        ]
    for job in jobs:
        try:
            results.append(worker.run(job))
        except BackendError as exc:  # pragma: no cover (drain catches these)
            log.error("worker_backend_error", session=job.get("key"), error=str(exc))
        except Exception as exc:
            import traceback

            from ovhooks.redact import describe_exception

            log.error(
                "worker_crashed",
                session=job.get("key"),
                error=describe_exception(exc),
                trace=traceback.format_exc(limit=8),
            )
    return results
