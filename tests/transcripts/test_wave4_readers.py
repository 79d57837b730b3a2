"""Copilot CLI, Qwen Code and Factory Droid transcripts -> Turns, on the recordings of the real
CLIs (tests/fixtures/<host>, scripts/record_wave4_fixtures.py): session 1 is a prompt that
ran a shell tool (``RUNSHELL``) and a second prompt in the same session; session 2 a fresh
prompt. Every hook answered SessionStart and UserPromptSubmit with an ``OVH-MARKER`` context,
which the recordings hold and no turn may."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ovhooks.model import Turn
from ovhooks.transcripts import copilot, droid, qwen
from ovhooks.transcripts.reader import read_new

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIRST, SECOND, FRESH = (
    "Remember that the deploy target is staging-7. RUNSHELL",
    "Second prompt of the same session.",
    "A fresh session: what is the deploy target?",
)
READERS: dict[str, Callable[[Any], list[Turn]]] = {
    "copilot": copilot.records_to_turns,
    "qwen": qwen.records_to_turns,
    "droid": droid.records_to_turns,
}
RECENT = {
    "copilot": copilot.recent_user_texts,
    "qwen": qwen.recent_user_texts,
    "droid": droid.recent_user_texts,
}
HOSTS = sorted(READERS)


def _turns(host: str, name: str, cursor: dict[str, Any] | None = None) -> list[Turn]:
    return READERS[host](read_new(str(FIXTURES / host / name), cursor).records)


@pytest.mark.parametrize("host", HOSTS)
def test_the_users_prompts_are_the_user_turns_in_order(host: str) -> None:
    assert [t.text for t in _turns(host, "session-1.jsonl") if t.role == "user"] == [
        FIRST,
        SECOND,
    ]
    assert [t.text for t in _turns(host, "session-2.jsonl") if t.role == "user"] == [FRESH]


@pytest.mark.parametrize("host", HOSTS)
def test_replies_are_assistant_turns_and_uids_are_unique(host: str) -> None:
    turns = _turns(host, "session-1.jsonl")
    replies = [t.text for t in turns if t.role == "assistant" and t.text]
    assert len(replies) == 2 and all(r.startswith("STUB-") for r in replies), replies
    assert len({t.uid for t in turns}) == len(turns) and all(t.uid for t in turns)
    assert all(t.timestamp for t in turns)


@pytest.mark.parametrize("host", HOSTS)
def test_injected_context_and_host_reminders_are_never_turns(host: str) -> None:
    raw = "".join(
        (FIXTURES / host / name).read_text(encoding="utf-8")
        for name in ("session-1.jsonl", "session-2.jsonl")
    )
    assert "OVH-MARKER" in raw  # the recording holds our hooks' context (so this can fail)
    for name in ("session-1.jsonl", "session-2.jsonl"):
        for turn in _turns(host, name):
            for needle in ("OVH-MARKER", "system-reminder", "system_reminder", "qwen:"):
                assert needle not in turn.text, (host, turn)


@pytest.mark.parametrize("host", HOSTS)
def test_the_shell_call_is_kept_with_its_result(host: str) -> None:
    calls = [tool for t in _turns(host, "session-1.jsonl") for tool in t.tools]
    assert [c.name for c in calls] == ["bash"]
    call = calls[0]
    assert call.input == {"command": "echo hello-from-shell"} and call.call_id
    if host == "copilot":  # Copilot has a bash tool: it really ran
        assert "hello-from-shell" in (call.output or "") and not call.is_error
    else:  # Qwen and Droid name their shell tool otherwise: the call failed, and says so
        assert call.output and call.is_error


@pytest.mark.parametrize("host", HOSTS)
def test_reading_from_every_line_boundary_gives_each_turn_once(host: str, tmp_path: Path) -> None:
    """The worker reads from a byte cursor: split anywhere, the pieces hold each turn once."""
    source = FIXTURES / host / "session-1.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    whole = [(t.role, t.text, t.uid) for t in _turns(host, "session-1.jsonl")]
    for cut in range(1, len(lines)):
        path = tmp_path / f"cut-{cut}.jsonl"
        path.write_bytes(b"".join(lines[:cut]))
        first = read_new(str(path), None)
        path.write_bytes(b"".join(lines))
        second = read_new(str(path), first.cursor)
        pieces = READERS[host](first.records) + READERS[host](second.records)
        assert [(t.role, t.text, t.uid) for t in pieces if t.text] == [w for w in whole if w[1]]


@pytest.mark.parametrize("host", HOSTS)
def test_recent_user_texts_are_the_last_prompts(host: str) -> None:
    records = [
        json.loads(line)
        for line in (FIXTURES / host / "session-1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert RECENT[host](records, 1) == [SECOND]
    assert RECENT[host](records, 5) == [FIRST, SECOND]
    assert RECENT[host](records, 0) == []


@pytest.mark.parametrize("host", HOSTS)
def test_records_of_the_wrong_shape_are_skipped(host: str) -> None:
    junk: list[tuple[int, dict[str, Any]]] = [
        (0, {}),
        (1, {"type": "user.message", "data": "x"}),
        (2, {"type": "message", "id": 5, "message": {}}),
        (3, {"type": "user", "uuid": "u1", "message": {"parts": "nope"}}),
        (4, {"type": "message", "id": "m1", "message": {"role": "user", "content": 7}}),
        (5, {"type": "assistant.message", "id": "a1", "data": {"toolRequests": [1, {}]}}),
        (6, {"type": "assistant", "uuid": "a2", "message": {"parts": [{"functionCall": {}}]}}),
    ]
    turns = READERS[host](junk)
    assert all(t.role == "assistant" and t.tools for t in turns)
    assert all(tool.name == "tool" and tool.call_id for t in turns for tool in t.tools)


def test_copilot_reads_the_typed_prompt_not_the_transformed_one() -> None:
    record = {
        "type": "user.message",
        "id": "u1",
        "timestamp": "2026-11-28T00:00:00Z",
        "data": {
            "content": "typed",
            "transformedContent": "<current_datetime>x</current_datetime>",
        },
    }
    assert [t.text for t in copilot.records_to_turns([(0, record)])] == ["typed"]


def test_copilot_failed_tool_keeps_its_error_message() -> None:
    call = {"type": "assistant.message", "id": "a1", "data": {"content": "", "toolRequests": [
        {"toolCallId": "c1", "name": "view", "arguments": {"path": "/x"}}]}}  # fmt: skip
    done = {"type": "tool.execution_complete", "id": "t1", "data": {
        "toolCallId": "c1", "success": False, "error": {"message": "no such file"}}}  # fmt: skip
    (turn,) = copilot.records_to_turns([(0, call), (1, done)])
    assert turn.tools[0].is_error and turn.tools[0].output == "no such file"


def test_droid_hook_and_context_messages_are_skipped_whatever_their_text() -> None:
    hook = {"type": "message", "id": "h", "message": {"role": "user", "visibility": "llm_only",
            "content": [{"type": "text", "text": "MEMORY FROM A HOOK"}]}}  # fmt: skip
    typed = {"type": "message", "id": "u", "message": {"role": "user", "content": "typed"}}
    assert [t.text for t in droid.records_to_turns([(0, hook), (1, typed)])] == ["typed"]
