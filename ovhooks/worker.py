"""The worker: capture new turns into the queue, then drain it, one session at a time.

Hooks that write (Stop, PreCompact, SessionEnd, SubagentStop, and SessionStart's commits of
other sessions) hand a job to a detached worker and return at once (interface §5.5). For one
session one worker runs at a time and at most one waits (``workerlock.py``), so no two read
the same cursor and send the same turns (anchor bug #5).

Order inside one run: read what the transcript gained; queue it together with the cursor it
advances (one atomic write, ``outbox.py``); queue a requested commit; drain. Every network
write happens in the drain, after the data is on disk.
"""

from __future__ import annotations

import os
import time

from ovhooks import layout
from ovhooks.backend.errors import BackendError
from ovhooks.outbox import InflightError, Outbox
from ovhooks.state import StateStore, new_state

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.config import Settings
    from ovhooks.layout import Job, State
    from ovhooks.log import Log
    from ovhooks.model import Turn
    from ovhooks.plan import Plan

# How many captured turn uids a state remembers, to recognise turns seen before when a
# transcript is rewritten. Bounded so the state file stays small.
RECENT_UIDS = 4000
# Failures closer together than this belong to one outage: the user is told once about it.
OUTAGE_GAP_S = 300.0


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
        if self.plan is not None:
            return self._run_locked(job)
        from ovhooks.workerlock import SessionTurn

        turn = SessionTurn(self.settings.state_dir, key)
        outcome, job = turn.acquire(job, self.settings.worker_lock_wait_s)
        if outcome == "handed":
            self.log.info("worker_handed_off", session=key)
            return {"key": key, "skipped": "handed to the waiting worker"}
        if outcome == "timeout":
            self.log.error("worker_lock_timeout", session=key)
            return {"key": key, "skipped": "lock busy"}
        try:
            return self._run_locked(job)
        finally:
            turn.release()

    def outbox(self, key: str) -> Outbox:
        return Outbox(
            self.store,
            key,
            plan=self.plan,
            log=self.log,
            inflight_window_s=self.settings.inflight_window_s,
            clock=self.clock,
        )

    # --- the steps --------------------------------------------------------------------------
    def _run_locked(self, job: Job) -> dict[str, Any]:
        key = str(job["key"])
        now = self.clock()
        outbox = self.outbox(key)
        summary: dict[str, Any] = {"key": key, "queued": 0, "sent": 0, "commits": 0}

        def create() -> State:
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
            self._queue_commit(key, str(job["commit"]), job.get("end"))
        drained = self._drain(key, outbox, summary)
        threshold = self.settings.commit_token_threshold
        if drained is not None and threshold and drained >= threshold:
            self._queue_commit(key, f"{drained} pending tokens", None, keep_recent=True)
            self._drain(key, outbox, summary)
        return summary

    def _capture(self, job: Job, state: State, outbox: Outbox, now: float) -> int:
        from ovhooks.capture import CaptureOptions, build_messages
        from ovhooks.transcripts.reader import read_new

        key = str(job["key"])
        path = str(job.get("transcript_path") or state.get("transcript_path") or "")
        if not path:
            return 0
        # The cursor moved in the same write that queued what it covers: whatever happened
        # to the queue since (sent, replayed, crashed), reading on from it is right.
        cursor: dict[str, Any] = dict(state.get("cursor") or {})
        seen = set(state.get("recent_uids") or [])
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
        if read.bad_lines:  # skipped, once each: the cursor moves past them
            self.log.error("transcript_bad_lines", session=key, lines=read.bad_lines)
        turns = _turn_reader(str(state.get("host") or job.get("host")))(read.records)
        if state.get("forked"):  # a Claude fork's transcript starts with its parent's turns
            from ovhooks.transcripts.fork import copied_uuids

            seen |= copied_uuids(read.records, str(state.get("host_session_id") or ""), path)
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
        if state.get("project_dir"):  # DirectoryAdded moved the session to another project
            peer = str(state.get("peer") or peer)
        if peer:
            for message in messages:
                message.setdefault("peer_id", peer)
        uids = [t.uid for t in fresh]
        ov_session = str(state.get("ov_session_id") or key)
        stats = captured.stats
        if any(k.startswith("redacted") and v for k, v in stats.items()):
            self.log.info(
                "capture_redacted",
                session=key,
                **{k: v for k, v in stats.items() if k.startswith("redacted") and v},
            )

        def change(doc: State) -> None:
            moved: Any = {**read.cursor, "turns": int(cursor.get("turns") or 0) + len(turns)}
            doc["cursor"] = moved
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
                doc["cwd"] = str(job["cwd"])
            if peer:
                doc["peer"] = peer
            if fresh:
                doc["last_activity_at"] = now
                doc["turns_captured"] = int(doc.get("turns_captured") or 0) + len(fresh)
            doc["uncommitted"] = int(doc.get("uncommitted") or 0) + len(messages)

        # ONE atomic write: the queue entry and everything it advances.
        outbox.enqueue("append", ov_session, messages, change=change)
        return len(messages)

    def _queue_commit(
        self, key: str, reason: str, end: object, *, keep_recent: bool = False
    ) -> None:
        keep = self.settings.commit_keep_recent if keep_recent else 0
        now = self.clock()

        def change(doc: State) -> None:
            if end is not None:
                doc["ended"] = True
                doc["end_reason"] = str(end)
            queue = doc.get("queue") or []
            if int(doc.get("uncommitted") or 0) == 0 and not any(
                e.get("op") == "append" for e in queue
            ):
                return  # nothing new since the last commit: an empty commit would be skipped
            Outbox.append_entry(
                doc,
                "commit",
                str(doc.get("ov_session_id") or key),
                now,
                keep_recent_count=keep,
                reason=reason,
            )
            doc["uncommitted"] = 0
            doc["commit_requested_at"] = now

        self.store.update(key, change)

    def _drain(self, key: str, outbox: Outbox, summary: dict[str, Any]) -> int | None:
        state = self.store.load(key) or {}
        if not state.get("queue") and not os.path.isdir(outbox.dir):
            return None
        backend = self.backend_for(str(state.get("peer") or ""))
        gone: list[bool] = []
        result = outbox.drain(backend, on_commit_not_found=lambda _e: gone.append(True))
        summary["sent"] += result.messages_sent
        summary["commits"] += len(result.commits)
        if result.dead:
            summary["set_aside"] = summary.get("set_aside", 0) + result.dead
        if gone:
            # interface: a 404 for a session the server no longer has drops that one state
            self.store.delete(key)
            return None
        if self.plan is not None:
            return None
        now = self.clock()
        error = result.error

        def change(doc: State) -> None:
            if isinstance(error, InflightError):
                return  # still the same outage (or none): nothing new to record
            if error is not None:
                doc["last_error"] = {
                    "at": now,
                    "error": str(error),
                    "status": getattr(error, "status", None),
                    "queued": result.remaining,
                }
                outage = doc.get("outage")
                if not outage or now - float(outage.get("last_failure_at") or 0) > OUTAGE_GAP_S:
                    doc["outage"] = {"since": now, "last_failure_at": now}
                else:
                    doc["outage"] = {"since": outage["since"], "last_failure_at": now}
            elif doc.get("last_error"):
                doc["last_error"] = None

        self.store.update(key, change)
        if result.commits:
            from ovhooks.commit_outcome import record

            record(self.store, key, result.commits, now)
        if error is not None:
            event = "drain_waiting" if isinstance(error, InflightError) else "drain_failed"
            self.log.error(event, session=key, error=str(error), queued=result.remaining)
            summary["error"] = str(error)
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

    stamp = layout.sweep_stamp_path(settings.state_dir)
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

    # One client for the whole run: every batch and commit rides the same kept-alive
    # connection (the client reconnects when the server closed it between requests).
    transport = None
    if settings.backend != "local":
        from ovhooks.backend.http import transport_for

        transport = transport_for(settings)

    def backend_for(peer: str) -> Backend:
        backend = make_backend(settings, peer=peer, transport=transport)
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
    if plan is None and settings.detach:  # inline runs (tests, debugging) do not wait
        from ovhooks.commit_outcome import poll_pending

        poll_pending(worker.store, backend_for, log=log, clock=clock)
    return results
