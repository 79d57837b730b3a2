"""Codex sub-agent messages (response_item ``agent_message``) are kept, naming the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ovhooks.transcripts.codex import records_to_turns
from tests.support.hooks import run_inline
from tests.support.rollouts import CodexRollout, codex_payload
from tests.support.stores import LocalStore


def _agent(rollout: CodexRollout, **payload: Any) -> None:
    rollout._item({"type": "agent_message", "id": f"am{rollout.n}", **payload})


def _records(*payloads: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, {"type": "response_item", "payload": p}) for i, p in enumerate(payloads)]


def test_agent_message_becomes_assistant_text_with_author_and_recipient() -> None:
    turns = records_to_turns(
        _records(
            {
                "type": "message",
                "id": "u1",
                "role": "user",
                "content": [{"type": "input_text", "text": "review the parser"}],
            },
            {
                "type": "agent_message",
                "id": "a1",
                "author": "reviewer",
                "recipient": "main",
                "content": [{"type": "output_text", "text": "Found an off-by-one in split()."}],
            },
            {
                "type": "agent_message",
                "id": "a2",
                "author": {"name": "tester"},
                "text": "All 12 tests pass.",
            },
        )
    )
    assert [t.role for t in turns] == ["user", "assistant"]
    text = turns[1].text
    assert "[agent-message reviewer -> main]\nFound an off-by-one in split()." in text
    assert "[agent-message tester -> main]\nAll 12 tests pass." in text


def test_missing_names_default_and_empty_messages_are_dropped() -> None:
    turns = records_to_turns(
        _records(
            {"type": "agent_message", "id": "a1", "content": [{"type": "text", "text": "hi"}]},
            {"type": "agent_message", "id": "a2", "author": "x", "content": []},
        )
    )
    assert [t.text for t in turns] == ["[agent-message subagent -> main]\nhi"]


def test_agent_messages_reach_the_store(tmp_path: Path) -> None:
    store = LocalStore(tmp_path / "data")
    work = tmp_path / "work"
    work.mkdir()
    rollout = CodexRollout(tmp_path / "r.jsonl", "s1")
    rollout.user("Ask the reviewer to check the parser")
    _agent(
        rollout,
        author="reviewer",
        recipient="main",
        content=[{"type": "output_text", "text": "The parser drops the last token."}],
    )
    run_inline("stop", codex_payload("Stop", "s1", rollout.path, work), store.env())
    texts = store.texts("cx-s1")
    assert any("[agent-message reviewer -> main]" in t and "last token" in t for t in texts)
