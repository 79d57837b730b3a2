"""The worker: capture new turns into the queue, then drain it, one session at a time.

Hooks that write (Stop, PreCompact, SessionEnd, SubagentStop, and SessionStart's commits of
other sessions) hand a job to a detached worker and return at once (interface §5.5). For one
session one worker runs at a time and at most one waits (``worker/lock.py``), so no two read
the same cursor and send the same turns (anchor bug #5).

Order inside one run: read what the transcript gained and queue it together with the cursor
it advances (one atomic write, ``worker/intake.py``); queue a requested commit; drain
(``outbox/queue.py``). Every network write happens in the drain, after the data is on disk.
A dry run is chosen at the edge (``hookrun``, ``commands.common.job_runner``), which runs
the planning worker of ``dryrun/record.py`` instead of this one: the worker never looks up
to the dry run.
"""

from __future__ import annotations

import os
import time

from ovhooks.outbox.box import InflightError
from ovhooks.outbox.queue import Outbox
from ovhooks.session.store import StateStore, new_state
from ovhooks.settings import layout
from ovhooks.transport.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.log import Log
    from ovhooks.outbox.box import DrainResult
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job, State

# Failures closer together than this belong to one outage: the user is told once about it.
OUTAGE_GAP_S = 300.0
# How long a worker keeps trying a local store another process holds busy.
LOCAL_BUSY_WAIT_S = 60.0


class SessionWorker:
    """Runs jobs for sessions against one backend (``backend_for(peer)``)."""

    def __init__(
        self,
        settings: Settings,
        backend_for: Callable[[str], Backend],
        store: StateStore,
        *,
        log: Log,
        clock: Callable[[], float] = time.time,
        inflight_wait_s: float = 0.0,
    ) -> None:
        self.settings = settings
        self.backend_for = backend_for
        self.log = log
        self.clock = clock
        self.store = store
        # A background worker waits out a batch whose answer was lost (at most this long)
        # and drains again, so the turns behind it reach the server without a later hook.
        self.inflight_wait_s = inflight_wait_s

    def run(self, job: Job) -> dict[str, Any]:
        """Run one job under the session's worker lock; returns a summary for logs/tests."""
        key = str(job["key"])
        from ovhooks.worker.lock import SessionTurn

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
        """The queue of session ``key``."""
        return Outbox(
            self.store,
            key,
            log=self.log,
            inflight_window_s=self.settings.inflight_window_s,
            clock=self.clock,
        )

    # --- the steps --------------------------------------------------------------------------
    def _run_locked(self, job: Job) -> dict[str, Any]:
        """Capture, queue a requested commit, drain (and commit past the token threshold).

        The caller holds the session's worker lock (a dry run, which writes nothing, needs
        none)."""
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
            from ovhooks.worker.intake import take_in

            summary["queued"] = take_in(
                job, state, outbox, now, settings=self.settings, log=self.log
            )
        if job.get("commit"):
            self._queue_commit(key, str(job["commit"]), job.get("end"))
        drained = self._drain(key, outbox, summary)
        threshold = self.settings.commit_token_threshold
        if drained is not None and threshold and drained >= threshold:
            self._queue_commit(key, f"{drained} pending tokens", None, keep_recent=True)
            self._drain(key, outbox, summary)
        return summary

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
        waited = 0.0
        while not gone:
            pause = self._pause_before_retry(result, waited)
            if pause is None:
                break
            self.log.info("drain_retries", session=key, seconds=round(pause, 2))
            time.sleep(pause)
            waited += pause
            summary["sent"] += result.messages_sent
            summary["commits"] += len(result.commits)
            result = outbox.drain(backend, on_commit_not_found=lambda _e: gone.append(True))
        summary["sent"] += result.messages_sent
        summary["commits"] += len(result.commits)
        if result.dead:
            summary["set_aside"] = summary.get("set_aside", 0) + result.dead
        if gone:
            # interface: a 404 for a session the server no longer has drops that one state
            self.store.delete(key)
            return None
        return self._record_drain(key, result, summary)

    def _pause_before_retry(self, result: DrainResult, waited: float) -> float | None:
        """How long to wait before draining again, or None to stop here.

        A local store busy with another writer (a commit, ``remember``, another session's
        worker) past SQLite's busy timeout rolled back and will take the batch in a moment:
        under load that took more than 5 s, and a worker that gave up left the turns queued
        until some later hook (turns missing when a run ended). A batch whose answer was
        lost (or timed out here: one look at once tells how long is left) is waited out by a
        background worker (``inflight_wait_s``), so the turns behind it go without a hook.
        """
        error = result.error
        if isinstance(error, BackendError) and error.code == "BUSY":
            pause = min(0.25 + waited / 2, 2.0)
            return pause if waited + pause <= LOCAL_BUSY_WAIT_S else None
        if isinstance(error, BackendError) and error.kind == "timeout":
            return 0.01 if self.inflight_wait_s and not waited else None
        if isinstance(error, InflightError) and error.retry_in is not None:
            pause = error.retry_in + 0.05
            return pause if waited + pause <= self.inflight_wait_s else None
        return None

    def _record_drain(self, key: str, result: DrainResult, summary: dict[str, Any]) -> int | None:
        """Keep what a drain means for the session: its error and outage, commit outcomes,
        the log. Returns the server's pending tokens, if it said."""
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
            from ovhooks.session.commit_outcome import record

            record(self.store, key, result.commits, now)
        if error is not None:
            event = "drain_waiting" if isinstance(error, InflightError) else "drain_failed"
            self.log.error(event, session=key, error=str(error), queued=result.remaining)
            summary["error"] = str(error)
        return result.pending_tokens


# A worker commits sessions left idle past the TTL at most this often, so sessions are
# committed even when no new session ever starts on the machine (anchor #14).
SWEEP_INTERVAL_S = 600.0


def _background_sweep(
    settings: Settings, store: StateStore, busy: set[str], now: float
) -> list[Job]:
    """Commit jobs for idle sessions, if a sweep is due (the stamp file rate-limits it)."""
    from ovhooks.fsutil import write_atomic
    from ovhooks.session.lifecycle import commit_job, idle_sessions, sweep_due

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


def backends_for(settings: Settings) -> Callable[[str], Backend]:
    """``peer -> Backend`` for one run: every backend shares one client, so every batch and
    commit rides the same kept-alive connection (it reconnects when the server closed it)."""
    from ovhooks.backend.factory import make_backend

    transport = None
    if settings.backend != "local":
        from ovhooks.transport.http import transport_for

        transport = transport_for(settings)

    def backend_for(peer: str) -> Backend:
        return make_backend(settings, peer=peer, transport=transport)

    return backend_for


def run_jobs(
    settings: Settings,
    jobs: Sequence[Job],
    *,
    log: Log,
    clock: Callable[[], float] = time.time,
) -> list[dict[str, Any]]:
    """Run jobs in order, then the background sweep if one is due (a dry run calls
    ``dryrun.record.plan_jobs`` instead)."""
    backend_for = backends_for(settings)
    worker = SessionWorker(
        settings,
        backend_for,
        StateStore(settings.state_dir, log=log),
        log=log,
        clock=clock,
        # inline runs (tests, debugging) do not wait
        inflight_wait_s=settings.inflight_window_s if settings.detach else 0.0,
    )
    busy = {str(j["key"]) for j in jobs}
    jobs = [*jobs, *_background_sweep(settings, worker.store, busy, clock())]
    results = run_each(worker, jobs, log)
    if any(r.get("sent") or r.get("commits") for r in results):
        # New rows in the local store: the embedding service embeds them now, off any
        # hook's critical path (started here if none runs).
        from ovhooks.semantic.client import nudge_store

        nudge_store(settings)
    if settings.detach:  # inline runs (tests, debugging) do not wait
        from ovhooks.session.commit_outcome import poll_pending

        poll_pending(worker.store, backend_for, log=log, clock=clock)
    return results


def run_each(worker: SessionWorker, jobs: Sequence[Job], log: Log) -> list[dict[str, Any]]:
    """``worker.run`` for each job; a job that crashes is logged, its result says why (the
    log may be where it cannot write: a read-only state folder), and the next one runs."""
    results: list[dict[str, Any]] = []
    for job in jobs:
        try:
            results.append(worker.run(job))
        except BackendError as exc:  # pragma: no cover (drain catches these)
            log.error("worker_backend_error", session=job.get("key"), error=str(exc))
            results.append({"key": job.get("key"), "error": str(exc)})
        except Exception as exc:
            import traceback

            from ovhooks.redact import describe_exception

            cause = describe_exception(exc)
            log.error(
                "worker_crashed",
                session=job.get("key"),
                error=cause,
                trace=traceback.format_exc(limit=8),
            )
            results.append({"key": job.get("key"), "error": f"the worker failed: {cause}"})
    return results
