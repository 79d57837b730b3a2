"""The recorded Gemini CLI run (five ``gemini -p`` calls: a shell tool, a ``viking://`` read, a
real compression) replayed hook by hook through ovhooks, on both backends.

Each hook sees the transcript exactly as long as it was when Gemini ran that hook (the hook
log records its size), its payload as recorded, and runs in-process with the worker inline.
The promises: every turn captured once, in order, with nothing injected; one commit per
``gemini -p`` exit plus the one compression, never one per PreCompress; the guard denies the
``viking://`` read; every reply valid for Gemini.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.gemini_replies import (
    COMMANDS,
    FIXTURES,
    assert_gemini_valid,
    hook_log,
)
from tests.support.hooks import crash_lines, run_inline

PROMPTS = [
    "hello first turn",
    "second turn RUNSHELL please",
    "third turn READVIKING please",
    "fourth turn RUNSHELL BIGTOKENS please",
    "fifth turn after the compression",
]
EVENTS = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "AfterAgent": "Stop",
    "PreCompress": "PreCompact",
    "SessionEnd": "SessionEnd",
    "BeforeTool": "PreToolUse",
    "AfterTool": "PostToolUse",
}


def replay(store: Any, tmp_path: Path, **env: str) -> list[tuple[str, dict[str, Any]]]:
    """Run every recorded hook call; returns (Gemini event, reply) in order."""
    data = (FIXTURES / "session-transcript.jsonl").read_bytes()
    transcript = tmp_path / "chats" / "session.jsonl"
    transcript.parent.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    hook_env = store.env(OVHOOKS_RECALL_MIN_PROMPT_CHARS="1", **env)
    replies = []
    for entry in hook_log():
        event = str(entry["event"])
        transcript.write_bytes(data[: entry["transcript_bytes"] or 0])
        payload = {**entry["payload"], "transcript_path": str(transcript), "cwd": str(work)}
        reply, _err = run_inline(COMMANDS[event], payload, hook_env, host="gemini")
        assert_gemini_valid(EVENTS[event], reply)
        replies.append((event, reply))
    assert crash_lines() == []
    return replies


def _session(entry_log: list[dict[str, Any]]) -> str:
    return "gm-" + str(entry_log[0]["payload"]["session_id"])


def test_every_turn_once_in_order_and_nothing_injected(store: Any, tmp_path: Path) -> None:
    replay(store, tmp_path)
    texts = store.texts(_session(hook_log()))
    users = [t for t in texts if any(t.startswith(p) for p in PROMPTS)]
    assert users == PROMPTS, texts
    replies = [t for t in texts if t.startswith("STUB-REPLY #")]
    assert len(replies) == 5 and len(set(replies)) == 5, texts
    for text in texts:
        for needle in ("hook_context", "OVH-MARKER", "session_context", "STUB-COMPRESS", "Got it"):
            assert needle not in text, text


def test_one_commit_per_exit_and_one_for_the_compression(store: Any, tmp_path: Path) -> None:
    """Five SessionEnds and one real compression; Gemini fired PreCompress eight times."""
    log = hook_log()
    assert sum(e["event"] == "PreCompress" for e in log) == 8
    replay(store, tmp_path)
    assert store.commit_count(_session(log)) == 6


def test_precompress_commits_every_turn_when_every_attempt_compresses(
    store: Any, tmp_path: Path
) -> None:
    """The rule follows Gemini's threshold: with ``compressionThreshold`` tiny, each attempt
    compresses, and each PreCompress with something new commits (the control for the test
    above: the replay can commit more than six times)."""
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    settings = '{"model": {"compressionThreshold": 0.000001}}'
    (home / ".gemini" / "settings.json").write_text(settings)
    replay(store, tmp_path, HOME=str(home))
    assert store.commit_count(_session(hook_log())) > 6


def test_the_viking_read_is_denied_naming_the_command(store: Any, tmp_path: Path) -> None:
    replies = replay(store, tmp_path)
    denied = [r for e, r in replies if e == "BeforeTool" and r]
    assert len(denied) == 1, replies
    assert denied[0]["decision"] == "deny"
    uri = "viking://user/default/memories/preferences/indentation.md"
    assert f"`ovhooks read {uri}`" in denied[0]["reason"]
    assert "read_file cannot open it" in denied[0]["reason"]
    assert all(r == {} for e, r in replies if e in ("AfterAgent", "PreCompress", "SessionEnd"))


def test_a_resume_keeps_the_transcript_the_session_goes_on_writing(
    store: Any, tmp_path: Path
) -> None:
    """Gemini CLI 0.61 names a fresh file in SessionStart(resume) when the minute changed
    since the session began, then writes the resumed one: the session keeps its path."""
    from tests.support.hooks import session_state

    log = hook_log()
    payload = {**log[0]["payload"], "cwd": str(tmp_path)}
    main = str(tmp_path / "session-2026-11-26T06-15-abcd.jsonl")
    stub = str(tmp_path / "session-2026-11-26T06-16-abcd.jsonl")
    env = store.env()
    run_inline("session-start", {**payload, "transcript_path": main}, env, host="gemini")
    resumed = {**payload, "source": "resume", "transcript_path": stub}
    run_inline("session-start", resumed, env, host="gemini")
    assert session_state(_session(log))["transcript_path"] == main
