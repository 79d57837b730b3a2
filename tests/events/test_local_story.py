"""Issue 8's story: memory with no server at all.

Two sessions of a scripted Codex conversation on the local backend. In the first the user
states a preference among ordinary work; the session ends (SessionEnd -> commit -> the local
store promotes the preference to a memory). The second session's SessionStart block lists the
memory and its UserPromptSubmit recalls it for a question about the same thing. Every socket
connection is refused throughout, so nothing can come from a server.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.support.hooks import assert_host_valid, run_inline
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore

TABS_EN = "Remember: in this repo I always use tabs, never spaces"
TABS_ZH = "记住：这个项目里我总是用制表符缩进，不用空格"


# (statement, what session 2 asks, a phrase the recalled memory shows)
STORIES = {
    "en": (TABS_EN, "what indentation style do I use in this repo?", "always use tabs"),
    "zh": (TABS_ZH, "这个项目用什么缩进？", "制表符"),
    "en-file": (TABS_EN, "which indentation style should I use for this file?", "always use tabs"),
    "zh-file": (TABS_ZH, "这个文件应该用什么缩进？", "制表符"),
}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse every outgoing connection: the local store must need none."""

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise ConnectionRefusedError("no network in the local story")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


class Story:
    """The scripted conversation on one local store."""

    def __init__(self, tmp_path: Path, statement: str) -> None:
        self.store = LocalStore(Path(os.environ["OVHOOKS_DATA_DIR"]))
        self.env = self.store.env()
        self.work = tmp_path / "work"
        self.work.mkdir()
        self.tmp_path = tmp_path
        self.statement = statement

    def hook(
        self, sid: str, rollout: CodexRollout, command: str, event: str, **extra: Any
    ) -> dict[str, Any]:
        payload = codex_payload(event, sid, rollout.path, self.work, **extra)
        reply, _ = run_inline(command, payload, self.env)
        assert_host_valid("codex", event, reply)
        return reply

    def first_session(self) -> None:
        r = CodexRollout(self.tmp_path / "s1.jsonl", "s1")
        self.hook("s1", r, "session-start", "SessionStart", source="startup")
        r.environment()
        r.user("Please add a parse_config function to config.py that reads TOML.")
        r.assistant("Added parse_config to config.py; it uses tomllib.")
        self.hook("s1", r, "stop", "Stop")
        self.hook("s1", r, "user-prompt-submit", "UserPromptSubmit", prompt=self.statement)
        r.user(self.statement)
        r.assistant("Noted.")
        self.hook("s1", r, "stop", "Stop")
        r.user("Now run the tests.")
        r.shell("pytest -q", "12 passed in 0.40s")
        r.assistant("All 12 tests pass.")
        self.hook("s1", r, "stop", "Stop")
        self.hook("s1", r, "session-end", "SessionEnd", reason="other")
        assert self.store.commit_count("cx-s1") == 1, "SessionEnd commits the session"

    def second_session(self) -> tuple[CodexRollout, str]:
        r = CodexRollout(self.tmp_path / "s2.jsonl", "s2")
        reply = self.hook("s2", r, "session-start", "SessionStart", source="startup")
        return r, str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))

    def ask(self, rollout: CodexRollout, question: str) -> str:
        reply = self.hook("s2", rollout, "user-prompt-submit", "UserPromptSubmit", prompt=question)
        return str(reply.get("hookSpecificOutput", {}).get("additionalContext", ""))


@pytest.mark.parametrize("story", ["en", "zh"])
def test_session_start_lists_the_preference_stated_last_session(
    story: str, tmp_path: Path, no_network: None
) -> None:
    statement, _question, phrase = STORIES[story]
    run = Story(tmp_path, statement)
    run.first_session()
    _rollout, context = run.second_session()
    assert "session-start" in context
    assert phrase in context, context
    # only the preference became a memory: the chores of the session did not
    assert context.count("preferences/") == 1, context


@pytest.mark.parametrize(
    "story",
    [
        "en",
        "zh",
        "en-file",
        "zh-file",
    ],
)
def test_next_session_recalls_the_preference_for_a_related_question(
    story: str, tmp_path: Path, no_network: None
) -> None:
    statement, question, phrase = STORIES[story]
    run = Story(tmp_path, statement)
    run.first_session()
    rollout, _context = run.second_session()
    recalled = run.ask(rollout, question)
    assert "auto-recall" in recalled and phrase in recalled, recalled


def test_an_unrelated_question_recalls_nothing(tmp_path: Path, no_network: None) -> None:
    run = Story(tmp_path, TABS_EN)
    run.first_session()
    rollout, _context = run.second_session()
    assert "always use tabs" not in run.ask(rollout, "how do I rotate the database password?")


@pytest.mark.parametrize("length", [247, 300, 512])
def test_a_session_id_as_long_as_the_payload_allows_is_captured_and_committed(
    tmp_path: Path, no_network: None, length: int
) -> None:
    """Every state file is named after the session key: a host id the payload check accepts
    (up to 512 characters) must not make a name past the 255 bytes a file name holds."""
    from ovhooks.ids import prefixed_session_id

    run = Story(tmp_path, TABS_EN)
    sid = ("s" * (length - 4)) + "-end"
    key = prefixed_session_id("cx-", sid)
    assert len(key) < 200 and key != prefixed_session_id("cx-", sid[:-1] + "x")
    r = CodexRollout(tmp_path / "long.jsonl", sid)
    run.hook(sid, r, "session-start", "SessionStart", source="startup")
    r.user(TABS_EN)
    r.assistant("Noted.")
    run.hook(sid, r, "stop", "Stop")
    run.hook(sid, r, "session-end", "SessionEnd", reason="other")
    assert run.store.commit_count(key) == 1
