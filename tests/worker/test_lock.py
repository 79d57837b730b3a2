"""One worker runs per session, at most one waits; later jobs are handed to the waiting one."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from ovhooks.fsutil import FileLock
from ovhooks.session.store import StateStore
from ovhooks.settings import layout
from ovhooks.worker.lock import SessionTurn, merge_jobs


def _job(**work: Any) -> Any:
    return layout.new_job("cx-a", host="codex", transcript_path="/t.jsonl", **work)


def test_a_later_job_is_handed_to_the_waiting_worker(tmp_path: Path) -> None:
    state = str(tmp_path)
    running = FileLock(layout.worker_lock_path(state, "cx-a"))
    assert running.acquire()
    outcome: dict[str, Any] = {}

    def waiter() -> None:
        outcome["result"] = SessionTurn(state, "cx-a").acquire(_job(capture=True), 10.0)

    thread = threading.Thread(target=waiter)
    thread.start()
    deadline = time.monotonic() + 5
    probe = FileLock(layout.waiting_lock_path(state, "cx-a"))
    while probe.acquire(0):  # free: the waiter is not there yet
        probe.release()
        assert time.monotonic() < deadline
        time.sleep(0.01)
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
