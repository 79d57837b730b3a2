"""One worker runs per session, at most one waits: later jobs are handed to the waiting one.

During an outage or a hang every Stop starts a worker. Without this, each of them would wait
on the session's worker lock (40 processes after 40 Stops in a 30 s hang). Instead:

- the lock is free: take it and run;
- it is busy and nobody waits: become the waiting worker (``locks/<key>.waiting``);
- it is busy and a worker already waits: merge this job into ``locks/<key>.handoff`` and exit.

The waiting worker reads the hand-off file under its lock *before* it releases the waiting
lock, so a job is never written to a file nobody will read. A hand-off left by a waiter that
was killed is picked up by the next worker of the session (and listed as queued work).
"""

from __future__ import annotations

import json
import os

from ovhooks.fsutil import FileLock, read_json, write_json_atomic
from ovhooks.settings import layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.settings.layout import Job


def merge_jobs(older: Job, newer: Job) -> Job:
    """One job doing the work of both (the newer one's details win where both have some)."""
    merged: dict[str, object] = dict(older)
    for field, value in newer.items():
        if value not in (None, "", False, 0):
            merged[field] = value
    merged["capture"] = bool(older.get("capture") or newer.get("capture"))
    merged["wait_for_transcript_s"] = max(
        float(older.get("wait_for_transcript_s") or 0),
        float(newer.get("wait_for_transcript_s") or 0),
    )
    merged["wait_for_reply_s"] = max(
        float(older.get("wait_for_reply_s") or 0), float(newer.get("wait_for_reply_s") or 0)
    )
    merged["wait_for_answer_s"] = max(
        float(older.get("wait_for_answer_s") or 0), float(newer.get("wait_for_answer_s") or 0)
    )
    merged["handed"] = int(older.get("handed") or 0) + int(newer.get("handed") or 0) + 1
    return merged  # type: ignore[return-value]


class SessionTurn:
    """The right to run jobs for one session; ``job`` is what to run once acquired."""

    def __init__(self, state_dir: str, key: str) -> None:
        self.state_dir = state_dir
        self.key = key
        self.lock = FileLock(layout.worker_lock_path(state_dir, key))
        self._handoff_lock = FileLock(layout.handoff_path(state_dir, key) + ".lock", 10.0)

    def acquire(self, job: Job, wait_s: float) -> tuple[str, Job]:
        """("run", merged job) | ("handed", job) | ("timeout", job)."""
        if self.lock.acquire(0):
            return "run", self._take_handoff(job, handed_is_newer=False)
        waiting = FileLock(layout.waiting_lock_path(self.state_dir, self.key))
        with self._handoff_lock:
            if not waiting.acquire(0):
                self._put_handoff(job)
                return "handed", job
        try:
            got = self.lock.acquire(wait_s)
        finally:
            with self._handoff_lock:
                job = self._take_handoff(job, handed_is_newer=True, locked=True)
                waiting.release()
        if not got:
            with self._handoff_lock:
                self._put_handoff(job)
            return "timeout", job
        return "run", job

    def release(self) -> None:
        self.lock.release()

    def _take_handoff(self, job: Job, *, handed_is_newer: bool, locked: bool = False) -> Job:
        path = layout.handoff_path(self.state_dir, self.key)
        if not locked:
            if not os.path.exists(path):
                return job
            with self._handoff_lock:
                return self._take_handoff(job, handed_is_newer=handed_is_newer, locked=True)
        try:
            handed = read_json(path)
        except (OSError, ValueError):
            handed = None
        if isinstance(handed, dict):
            pair: tuple[Any, Any] = (job, handed) if handed_is_newer else (handed, job)
            job = merge_jobs(*pair)
        try:
            os.unlink(path)
        except OSError:
            pass
        return job

    def _put_handoff(self, job: Job) -> None:
        path = layout.handoff_path(self.state_dir, self.key)
        try:
            older = read_json(path)
        except (OSError, ValueError):
            older = None
        merged = merge_jobs(older, job) if isinstance(older, dict) else job  # type: ignore[arg-type]
        write_json_atomic(path, json.loads(json.dumps(merged)))
