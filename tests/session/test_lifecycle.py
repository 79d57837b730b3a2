"""The commit heuristics as a table, with an injected clock."""

from __future__ import annotations

import pytest

from ovhooks.hosts.registry import spec as host_spec
from ovhooks.session.lifecycle import (
    UNREAD_RETRY_S,
    commit_job,
    forgettable,
    idle_sessions,
    session_start_commits,
    sweep_due,
)
from ovhooks.session.store import new_state

NOW = 1_800_000_000.0


def _state(
    key: str,
    *,
    activity: float | None,
    uncommitted: int = 2,
    host: str = "codex",
    ended: bool = False,
    created: float = NOW - 5000,
):
    doc = new_state(key, host, key[3:], created)
    doc["last_activity_at"] = activity
    doc["uncommitted"] = uncommitted
    doc["ended"] = ended
    return doc


def _decide(states, source="startup", host="codex"):
    return session_start_commits(
        states,
        new_key="cx-new",
        host=host,
        source=source,
        now=NOW,
        active_window_s=120,
        idle_ttl_s=1800,
        ends_previous=host_spec(host).commits_previous_on_start,
    )


@pytest.mark.parametrize(
    ("states", "expected"),
    [
        ([], []),
        ([_state("cx-a", activity=NOW - 30)], [("cx-a", "previous session ended")]),
        ([_state("cx-a", activity=NOW - 30), _state("cx-b", activity=NOW - 60)], []),
        ([_state("cx-a", activity=NOW - 300)], []),  # not recent, not idle yet
        ([_state("cx-a", activity=NOW - 2000)], [("cx-a", "idle")]),
        ([_state("cx-a", activity=NOW - 30, uncommitted=0)], []),  # nothing to commit
        ([_state("cx-a", activity=None, created=NOW - 10)], []),  # only registered: never "active"
        ([_state("cx-a", activity=NOW + 50)], [("cx-a", "previous session ended")]),  # clock skew
        ([_state("cx-a", activity=NOW - 30, ended=True)], []),  # SessionEnd already committed it
        ([_state("cx-new", activity=NOW - 30)], []),  # never the new session itself
        (
            [
                _state("cx-a", activity=NOW - 30),
                _state("cx-b", activity=NOW - 60),
                _state("cx-c", activity=NOW - 4000),
            ],
            [("cx-c", "idle")],
        ),
    ],
)
def test_startup_table(states, expected) -> None:
    assert _decide(states) == expected


def test_resume_and_compact_never_commit() -> None:
    states = [_state("cx-a", activity=NOW - 30), _state("cx-b", activity=NOW - 9000)]
    assert _decide(states, source="resume") == []
    assert _decide(states, source="compact") == []


def test_claude_has_no_active_window_only_the_sweep() -> None:
    states = [
        _state("cc-a", activity=NOW - 30, host="claude"),
        _state("cc-b", activity=NOW - 9000, host="claude"),
    ]
    assert _decide(states, host="claude") == [("cc-b", "idle")]


def test_forgettable_keeps_anything_with_work_left() -> None:
    old = NOW - 40 * 24 * 3600
    done = _state("cx-done", activity=old, uncommitted=0)
    done["created_at"] = done["registered_at"] = old
    busy = _state("cx-busy", activity=old, uncommitted=3)
    busy["created_at"] = busy["registered_at"] = old
    assert forgettable([done, busy], now=NOW) == ["cx-done"]


def test_idle_sessions_and_sweep_rate_limit() -> None:
    idle = _state("cx-idle", activity=NOW - 4000)
    busy = _state("cx-busy", activity=NOW - 10)
    done = _state("cx-done", activity=NOW - 9000, uncommitted=0)
    assert idle_sessions([idle, busy, done], now=NOW, idle_ttl_s=1800) == ["cx-idle"]
    assert idle_sessions([idle], exclude="cx-idle", now=NOW, idle_ttl_s=1800) == []
    unread = _state("cx-unread", activity=NOW - 4000, uncommitted=0)
    unread["transcript_unread_since"] = NOW - 4000  # its file was not there: read it again
    assert idle_sessions([unread, done], now=NOW, idle_ttl_s=1800) == ["cx-unread"]
    assert idle_sessions([unread], now=NOW, idle_ttl_s=5000) == []  # not idle long enough
    unread["transcript_unread_since"] = NOW - UNREAD_RETRY_S - 1  # never came: stop looking
    assert idle_sessions([unread], now=NOW, idle_ttl_s=1800) == []
    assert sweep_due(None, now=NOW, interval_s=600)
    assert not sweep_due(NOW - 10, now=NOW, interval_s=600)
    assert sweep_due(NOW - 601, now=NOW, interval_s=600)
    assert sweep_due(NOW + 3600, now=NOW, interval_s=600)  # the clock went back: sweep anyway


def test_activity_stamped_by_a_clock_since_set_back_is_idle_once_past_the_ttl() -> None:
    # A day ahead: never swept until the clock caught up, not even by `sweep --ttl 0`.
    ahead = _state("cx-ahead", activity=NOW + 86_400)
    assert idle_sessions([ahead], now=NOW, idle_ttl_s=1800) == ["cx-ahead"]
    assert idle_sessions([ahead], now=NOW, idle_ttl_s=0) == ["cx-ahead"]
    near = _state("cx-near", activity=NOW + 60)  # a small step back: still active
    assert idle_sessions([near], now=NOW, idle_ttl_s=1800) == []


@pytest.mark.parametrize(
    ("transcript", "capture", "catches_up"),
    [("/t/rollout.jsonl", True, True), ("/t/rollout.jsonl", False, False), (None, True, False)],
)
def test_a_commit_job_catches_up_only_with_a_transcript_and_capture_on(
    transcript: str | None, capture: bool, catches_up: bool
) -> None:
    doc = _state("cx-old", activity=NOW - 4000)
    doc["transcript_path"] = transcript
    doc["peer"] = "proj-1"
    job = commit_job(doc, "idle (background sweep)", capture=capture)
    assert job["key"] == "cx-old" and job["host"] == "codex" and job["peer"] == "proj-1"
    assert job["transcript_path"] == transcript
    assert job["commit"] == "idle (background sweep)"
    assert job["capture"] is catches_up
