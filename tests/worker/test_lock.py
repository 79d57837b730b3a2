"""One worker runs per session, at most one waits; later jobs are handed to the waiting one."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from ovhooks.fsutil import FileLock
from ovhooks.session.store import StateStore
from ovhooks.settings import layout
from ovhooks.worker import lock as lock_module
from ovhooks.worker.lock import SessionTurn, merge_jobs


def _job(**work: Any) -> Any:
    return layout.new_job("cx-a", host="codex", transcript_path="/t.jsonl", **work)


def test_a_later_job_is_handed_to_the_waiting_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = str(tmp_path)
    running = FileLock(layout.worker_lock_path(state, "cx-a"))
    assert running.acquire()
    outcome: dict[str, Any] = {}
    waiting_taken = threading.Event()

    class SignallingLock(FileLock):
        # tells the test when the waiter holds the waiting lock; probing that lock from the
        # test instead races the waiter, which then (rightly) hands its job off and exits
        def acquire(self, timeout_s: float | None = None) -> bool:
            got = super().acquire(timeout_s)
            if got and self.path == layout.waiting_lock_path(state, "cx-a"):
                waiting_taken.set()
            return got

    monkeypatch.setattr(lock_module, "FileLock", SignallingLock)

    def waiter() -> None:
        outcome["result"] = SessionTurn(state, "cx-a").acquire(_job(capture=True), 10.0)

    thread = threading.Thread(target=waiter)
    thread.start()
    assert waiting_taken.wait(10), outcome
    later = SessionTurn(state, "cx-a").acquire(_job(commit="session end"), 10.0)
    latest = SessionTurn(state, "cx-a").acquire(_job(capture=True, last_assistant="bye"), 10.0)
    assert later[0] == "handed" and latest[0] == "handed"  # they exit at once, no pile-up
    running.release()
    thread.join(10)
    status, job = outcome["result"]
    assert status == "run"
    assert job["commit"] == "session end" and job["last_assistant"] == "bye" and job["capture"]
    assert not Path(layout.handoff_path(state, "cx-a")).exists()


def test_a_hand_off_left_by_a_killed_waiter_is_run_by_the_next_worker(tmp_path: Path) -> None:
    state = str(tmp_path)
    turn = SessionTurn(state, "cx-a")
    turn._put_handoff(_job(commit="idle"))
    # listed, so SessionStart replays it
    assert layout.queued_sessions(state, StateStore(state).all()) == ["cx-a"]
    status, job = SessionTurn(state, "cx-a").acquire(_job(capture=True), 1.0)
    assert status == "run" and job["commit"] == "idle" and job["capture"]


def test_merging_keeps_every_request() -> None:
    merged = merge_jobs(_job(commit="end", end="exit"), _job(capture=True, cwd="/w"))
    assert merged["commit"] == "end" and merged["end"] == "exit" and merged["capture"]
    assert merged["cwd"] == "/w"
