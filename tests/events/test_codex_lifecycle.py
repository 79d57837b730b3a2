"""The whole Codex lifecycle against the fake server: capture, commits, outages, resume."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, log_lines, run_inline, session_state
from tests.support.rollouts import CodexRollout, codex_payload

SID = "01a201de-87c7-7a30-ba45-7a6cf1e11575"
OV = f"cx-{SID}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


def _stop(
    env: dict[str, str],
    rollout: CodexRollout,
    project: Path,
    sid: str = SID,
    now: float | None = None,
):
    return run_inline("stop", codex_payload("Stop", sid, rollout.path, project), env, now=now)


def _state(sid: str = SID) -> dict[str, Any]:
    return session_state(f"cx-{sid}")


def test_stop_sends_each_new_turn_once_in_order(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.environment()
    rollout.developer('<openviking-context source="session-start">x</openviking-context>')
    rollout.turn(1)
    reply, _ = _stop(env, rollout, project)
    assert reply == {}
    rollout.turn(2)
    _stop(env, rollout, project)
    _stop(env, rollout, project)  # nothing new: nothing sent
    texts = fake_ov.texts(OV)
    assert len(texts) == 4
    assert "Question number 1" in texts[0] and "Answer number 1" in texts[1]
    assert "Question number 2" in texts[2] and "Answer number 2" in texts[3]
    assert not any("environment_context" in t or "openviking-context" in t for t in texts)
    batches = [r for r in fake_ov.requests if r["path"].endswith("/messages/batch")]
    assert len(batches) == 2, "the third Stop had nothing new and must not send"
    assert all(m["role"] in ("user", "assistant") for m in fake_ov.messages(OV))


def test_stop_threshold_commit_uses_append_answer(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url, OVHOOKS_COMMIT_TOKEN_THRESHOLD="10")
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.turn(1)
    _stop(env, rollout, project)
    paths = [r["path"] for r in fake_ov.requests]
    assert paths == [f"/api/v1/sessions/{OV}/messages/batch", f"/api/v1/sessions/{OV}/commit"]
    # no extra read after the append: the append's answer carried pending_tokens
    assert not any(r["method"] == "GET" for r in fake_ov.requests)
    assert _state()["commit_count"] == 1


def test_outage_three_stops_then_back(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    fake_ov.refuse()
    for i in range(1, 4):
        rollout.turn(i)
        reply, _ = _stop(env, rollout, project)
        assert isinstance(reply, dict)
    assert _state()["last_error"] is not None
    fake_ov.restart()
    rollout.turn(4)
    _stop(env, rollout, project)
    texts = fake_ov.texts(OV)
    expected = []
    for i in range(1, 5):
        expected += [f"Question number {i}", f"Answer number {i}"]
    assert len(texts) == len(expected)
    for text, want in zip(texts, expected, strict=True):
        assert want in text
    assert _state()["last_error"] is None


def test_outage_is_reported_once(fake_ov: FakeOpenViking, tmp_path: Path, project: Path) -> None:
    env = hook_env(fake_ov.url)
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    fake_ov.mode = "error500"
    rollout.turn(1)
    first, _ = _stop(env, rollout, project)
    assert first == {}  # the failure is discovered by this Stop's worker
    rollout.turn(2)
    second, _ = _stop(env, rollout, project)
    assert "memory writes are failing" in second["systemMessage"]
    rollout.turn(3)
    third, _ = _stop(env, rollout, project)
    assert "systemMessage" not in third


def test_pre_compact_catches_up_commits_and_keeps_cursor(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.turn(1)
    _stop(env, rollout, project)
    rollout.turn(2)  # not yet captured when compaction starts
    reply, _ = run_inline(
        "pre-compact", codex_payload("PreCompact", SID, rollout.path, project, trigger="auto"), env
    )
    assert reply == {}
    assert fake_ov.sessions[OV]["commit_count"] == 1
    rollout.compaction()
    rollout.turn(3)
    _stop(env, rollout, project)
    texts = fake_ov.texts(OV)
    assert len(texts) == 6 and "Question number 3" in texts[4]
    assert not any("summary of earlier work" in t for t in texts)
    post, _ = run_inline(
        "post-compact",
        codex_payload("PostCompact", SID, rollout.path, project, trigger="auto"),
        env,
    )
    assert post == {}


def test_session_end_commits(fake_ov: FakeOpenViking, tmp_path: Path, project: Path) -> None:
    env = hook_env(fake_ov.url)
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.turn(1)
    reply, _ = run_inline(
        "session-end", codex_payload("SessionEnd", SID, rollout.path, project, reason="other"), env
    )
    assert reply == {}
    assert fake_ov.sessions[OV]["commit_count"] == 1
    assert len(fake_ov.texts(OV)) == 2
    state = _state()
    assert state["ended"] is True and state["end_reason"] == "other"


def _start(env, sid, rollout, project, source="startup", now=None):
    return run_inline(
        "session-start",
        codex_payload("SessionStart", sid, rollout.path if rollout else "", project, source=source),
        env,
        now=now,
    )


def test_heuristic_one_recent_other_session_is_committed(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    t0 = 1_800_000_000.0
    first = CodexRollout(tmp_path / "a.jsonl", "sess-a")
    _start(env, "sess-a", first, project, now=t0)
    first.turn(1)
    _stop(env, first, project, sid="sess-a", now=t0 + 10)
    second = CodexRollout(tmp_path / "b.jsonl", "sess-b")
    reply, _ = _start(env, "sess-b", second, project, now=t0 + 60)
    assert fake_ov.sessions["cx-sess-a"]["commit_count"] == 1
    assert "queued 1 earlier session(s) for commit" in reply.get("systemMessage", "")
    # the committed session keeps its cursor: resuming it appends only new turns (bug #3)
    _start(env, "sess-a", first, project, source="resume", now=t0 + 90)
    first.turn(2)
    _stop(env, first, project, sid="sess-a", now=t0 + 100)
    texts = fake_ov.texts("cx-sess-a")
    assert len(texts) == 4
    assert [("Question number 1" in texts[0]), ("Question number 2" in texts[2])] == [True, True]


def test_heuristic_zero_and_two_recent_sessions_commit_nothing(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    t0 = 1_800_000_000.0
    a = CodexRollout(tmp_path / "a.jsonl", "sess-a")
    b = CodexRollout(tmp_path / "b.jsonl", "sess-b")
    # zero: a session that only started (no turn) is not "recently active" (bug #4)
    _start(env, "sess-a", a, project, now=t0)
    _start(env, "sess-b", b, project, now=t0 + 5)
    assert not any(r["path"].endswith("/commit") for r in fake_ov.requests)
    # two recently active sessions: ambiguous, leave them to the idle sweep
    a.turn(1)
    _stop(env, a, project, sid="sess-a", now=t0 + 10)
    b.turn(1)
    _stop(env, b, project, sid="sess-b", now=t0 + 20)
    c = CodexRollout(tmp_path / "c.jsonl", "sess-c")
    _start(env, "sess-c", c, project, now=t0 + 30)
    assert not any(r["path"].endswith("/commit") for r in fake_ov.requests)
    # ... and the idle sweep commits both once they are idle past the TTL
    d = CodexRollout(tmp_path / "d.jsonl", "sess-d")
    _start(env, "sess-d", d, project, now=t0 + 20 + 1801)
    committed = sorted(r["path"] for r in fake_ov.requests if r["path"].endswith("/commit"))
    assert committed == ["/api/v1/sessions/cx-sess-a/commit", "/api/v1/sessions/cx-sess-b/commit"]


def test_resume_never_commits_and_injects_archive(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    t0 = 1_800_000_000.0
    a = CodexRollout(tmp_path / "a.jsonl", "sess-a")
    a.turn(1)
    _stop(env, a, project, sid="sess-a", now=t0)
    run_inline(
        "session-end",
        codex_payload("SessionEnd", "sess-a", a.path, project, reason="other"),
        env,
        now=t0 + 5,
    )
    b = CodexRollout(tmp_path / "b.jsonl", "sess-b")
    b.turn(1)
    _stop(env, b, project, sid="sess-b", now=t0 + 6)
    commits_before = sum(r["path"].endswith("/commit") for r in fake_ov.requests)
    reply, _ = _start(env, "sess-a", a, project, source="resume", now=t0 + 4000)
    assert sum(r["path"].endswith("/commit") for r in fake_ov.requests) == commits_before
    context = reply["hookSpecificOutput"]["additionalContext"]
    assert "Archive 1 of cx-sess-a" in context


def test_commit_failure_is_retried_at_next_startup(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    t0 = 1_800_000_000.0
    a = CodexRollout(tmp_path / "a.jsonl", "sess-a")
    a.turn(1)
    _stop(env, a, project, sid="sess-a", now=t0)
    fake_ov.mode = "error500"
    _start(env, "sess-b", None, project, now=t0 + 30)
    assert fake_ov.sessions["cx-sess-a"]["commit_count"] == 0
    fake_ov.mode = "ok"
    _start(env, "sess-c", None, project, now=t0 + 5000)
    assert fake_ov.sessions["cx-sess-a"]["commit_count"] == 1
    assert len(fake_ov.texts("cx-sess-a")) == 2


def test_commit_404_drops_that_state_and_sweep_goes_on(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    env = hook_env(fake_ov.url)
    t0 = 1_800_000_000.0
    for sid in ("sess-a", "sess-b"):
        r = CodexRollout(tmp_path / f"{sid}.jsonl", sid)
        r.turn(1)
        _stop(env, r, project, sid=sid, now=t0)
    del fake_ov.sessions["cx-sess-a"]  # the server lost it
    _start(env, "sess-c", None, project, now=t0 + 5000)
    states = Path(os.environ["OVHOOKS_STATE_DIR"]) / "sessions"
    assert not (states / "cx-sess-a.json").exists()
    assert fake_ov.sessions["cx-sess-b"]["commit_count"] == 1


def test_dry_run_writes_nothing(fake_ov: FakeOpenViking, tmp_path: Path, project: Path) -> None:
    env = hook_env(fake_ov.url)
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    rollout.turn(1)
    _stop(env, rollout, project)  # some real state to begin with
    rollout.turn(2)
    state_dir = Path(os.environ["OVHOOKS_STATE_DIR"])

    def snapshot() -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in state_dir.rglob("*") if p.is_file()}

    before = snapshot()
    writes_before = len(fake_ov.writes())
    commands = [
        (
            "session-start",
            codex_payload("SessionStart", SID, rollout.path, project, source="startup"),
        ),
        (
            "user-prompt-submit",
            codex_payload(
                "UserPromptSubmit",
                SID,
                rollout.path,
                project,
                prompt="how do I parse nested lists?",
            ),
        ),
        ("stop", codex_payload("Stop", SID, rollout.path, project)),
        ("pre-compact", codex_payload("PreCompact", SID, rollout.path, project, trigger="auto")),
        ("session-end", codex_payload("SessionEnd", SID, rollout.path, project, reason="other")),
    ]
    plans = {}
    for command, payload in commands:
        reply, err = run_inline(command, payload, env, dry_run=True, now=time.time() + 99999)
        assert isinstance(reply, dict)
        plans[command] = err
    assert len(fake_ov.writes()) == writes_before
    assert snapshot() == before
    assert f"POST /api/v1/sessions/{OV}/messages/batch (2 message(s)" in plans["stop"]
    assert f"POST /api/v1/sessions/{OV}/commit" in plans["session-end"]


def test_secrets_and_private_spans_never_leave_the_machine(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    """Interface §5.4, end to end: the transcript has them, the server never sees them."""
    env = hook_env(fake_ov.url, OVHOOKS_LOG_LEVEL="debug")
    rollout = CodexRollout(tmp_path / "rollout.jsonl", SID)
    key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
    rollout.user(
        f"Deploy with OPENAI_API_KEY={key} and the db at postgres://admin:hunter2pass@db:5432/app "
        "<private>my salary is 123k</private> then tell me how it went"
    )
    rollout.shell(f"curl -H 'Authorization: Bearer {key}' https://api.example.com", "ok")
    rollout.assistant("Deployed; the health check passed.")
    _stop(env, rollout, project)
    sent = json.dumps(fake_ov.messages(OV))
    assert key not in sent and "hunter2pass" not in sent and "salary" not in sent
    assert "[REDACTED:" in sent and "Deployed" in sent
    log = "\n".join(log_lines())
    assert key not in log and "hunter2pass" not in log
    assert "capture_redacted" in log


def test_idle_sessions_are_committed_without_a_new_session_start(
    fake_ov: FakeOpenViking, tmp_path: Path, project: Path
) -> None:
    """Anchor #14: the sweep also runs from workers (at most every 10 min), not only at startup."""
    env = hook_env(fake_ov.url)
    t0 = 1_800_000_000.0
    a = CodexRollout(tmp_path / "a.jsonl", "sess-a")
    a.turn(1)
    _stop(env, a, project, sid="sess-a", now=t0)
    b = CodexRollout(tmp_path / "b.jsonl", "sess-b")
    b.turn(1)
    _stop(env, b, project, sid="sess-b", now=t0 + 1801)  # a is idle past the TTL by now
    assert fake_ov.sessions["cx-sess-a"]["commit_count"] == 1
    assert fake_ov.sessions["cx-sess-b"]["commit_count"] == 0  # b is the live one
    b.turn(2)
    _stop(env, b, project, sid="sess-b", now=t0 + 1801 + 60)
    a.turn(2)  # a continues later: its new turns are appended, not the old ones again
    _stop(env, a, project, sid="sess-a", now=t0 + 1801 + 120)
    assert len(fake_ov.texts("cx-sess-a")) == 4
    commits = [r["path"] for r in fake_ov.requests if r["path"].endswith("/commit")]
    assert commits == ["/api/v1/sessions/cx-sess-a/commit"], "the sweep is rate-limited"
