"""The recall query leaves the machine: the prompt and the recent turns are scrubbed first
(issue 14, item 2), for UserPromptSubmit and SubagentStart alike."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.claude_transcripts import ClaudeTranscript
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env, run_inline

SID = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
TOKEN = "ghp_" + "R7xK2mQ9pL4wZ8vT1nB6cY3hD5jF0gS2aE4u"
PASSWORD = "Tr0ub4dor-Zq81x"


def _search_bodies(fake_ov: FakeOpenViking) -> str:
    return json.dumps([r["body"] for r in fake_ov.requests if "/search/" in r["path"]])


def test_user_prompt_and_recent_turns_are_scrubbed(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    env = hook_env(fake_ov.url)
    t = ClaudeTranscript(tmp_path / "cfg", SID, tmp_path)
    t.prompt(f"the deploy uses PGPASSWORD={PASSWORD} on the staging database")
    t.reply("Understood, staging uses that password.")
    payload = t.payload(
        "UserPromptSubmit", prompt=f"why does the parser test fail with token {TOKEN}?"
    )
    run_inline("user-prompt-submit", payload, env, host="claude")
    sent = _search_bodies(fake_ov)
    assert "parser" in sent, "the query was sent"
    assert TOKEN not in sent and "R7xK2mQ9" not in sent
    assert PASSWORD not in sent


def test_subagent_task_is_scrubbed(fake_ov: FakeOpenViking, tmp_path: Path) -> None:
    env = hook_env(fake_ov.url)
    t = ClaudeTranscript(tmp_path / "cfg", SID, tmp_path)
    t.prompt("survey the parser tests")
    sub = t.subagent("a1")
    sub.user(f"Survey the parser tests; the CI token is {TOKEN}")
    payload = t.payload("SubagentStart", agent_id="a1", agent_type="general-purpose")
    run_inline("subagent-start", payload, env, host="claude")
    sent = _search_bodies(fake_ov)
    assert "Survey the parser tests" in sent
    assert TOKEN not in sent and "R7xK2mQ9" not in sent


def test_a_long_prompt_costs_the_hook_a_bounded_scrub_and_leaks_nothing_at_the_cut(
    fake_ov: FakeOpenViking, tmp_path: Path, monkeypatch: object
) -> None:
    # The query holds the prompt's first 2,000 characters: a secret across that cut is
    # scrubbed whole, and a 64 kB prompt with long earlier turns is not scrubbed whole (the
    # hook pays for what it sends, not for the paste).
    import pytest

    from ovhooks.capture import scrub as scrub_module
    from ovhooks.recall.query import PROMPT_QUERY_CHARS

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    sizes: list[int] = []
    real = scrub_module.scrub

    def counting(text: str, **kw: bool) -> tuple[str, dict[str, int]]:
        sizes.append(len(text))
        return real(text, **kw)

    monkeypatch.setattr(scrub_module, "scrub", counting)
    env = hook_env(fake_ov.url)
    t = ClaudeTranscript(tmp_path / "cfg", SID, tmp_path)
    t.prompt("parser notes " * 5000)
    t.reply("Noted.")
    head = "why does the parser test fail? " * 80
    prompt = head[: PROMPT_QUERY_CHARS - 10] + TOKEN + " " + "log line " * 7000
    payload = t.payload("UserPromptSubmit", prompt=prompt)
    run_inline("user-prompt-submit", payload, env, host="claude")
    sent = _search_bodies(fake_ov)
    assert "parser" in sent
    assert TOKEN[:8] not in sent
    assert sizes and max(sizes) <= PROMPT_QUERY_CHARS + 2 * scrub_module.HEAD_MARGIN
