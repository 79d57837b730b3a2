"""Pi session files -> turns, on a real Pi 0.73.1 session (tests/fixtures/pi).

The recorded session has a tool call, an in-place branch (the leaf moved back to the first
reply, then a new turn), a compaction and a print-mode turn after it. Capture must follow the
branch the user is on, read by byte cursor like the other hosts' transcripts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.transcripts.pi import current_branch, recent_user_texts, records_to_turns
from ovhooks.transcripts.reader import read_new

FIXTURE = Path(__file__).parents[1] / "fixtures" / "pi" / "session-branched.jsonl"
BRANCH_TURN = "A turn on the new branch"


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def _user_texts(records: list[tuple[int, dict[str, Any]]]) -> list[str]:
    return [t.text for t in records_to_turns(records) if t.role == "user"]


def test_a_whole_file_yields_only_the_branch_the_user_is_on() -> None:
    pairs = list(enumerate(_records()))
    assert _user_texts(pairs) == ["First turn: I prefer tabs", BRANCH_TURN, "A print-mode turn"]
    turns = records_to_turns(pairs)
    assert [t.role for t in turns] == ["user", "assistant"] * 3
    assert all(t.uid.startswith("pi-") for t in turns)
    assert len({t.uid for t in turns}) == len(turns)


def test_read_by_cursor_captures_the_abandoned_turn_then_only_the_new_branch(
    tmp_path: Path,
) -> None:
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if BRANCH_TURN.encode() in line)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    first = read_new(str(path), None)
    turns = records_to_turns(first.records)
    assert [t.text for t in turns if t.role == "user"] == [
        "First turn: I prefer tabs",
        "RUNSHELL please",
    ]
    tools = [tool for t in turns for tool in t.tools]
    assert [(tool.name, tool.input, tool.output) for tool in tools] == [
        ("bash", {"command": "echo hello-from-shell"}, "hello-from-shell\n")
    ]
    path.write_bytes(b"".join(lines))
    second = read_new(str(path), first.cursor)
    assert not second.rewritten
    assert _user_texts(second.records) == [BRANCH_TURN, "A print-mode turn"]


def test_compaction_and_bookkeeping_entries_are_not_turns() -> None:
    texts = " ".join(t.text for t in records_to_turns(enumerate(_records())))
    assert "STUB-SUMMARY" not in texts  # the compaction summary
    assert "stub-model" not in texts  # model_change


def test_the_walk_stops_at_cycles_and_missing_parents() -> None:
    cycle = [
        {
            "type": "message",
            "id": "a",
            "parentId": "b",
            "message": {"role": "user", "content": "x"},
        },
        {
            "type": "message",
            "id": "b",
            "parentId": "a",
            "message": {"role": "user", "content": "y"},
        },
    ]
    assert [r["id"] for _o, r in current_branch(enumerate(cycle))] == ["a", "b"]
    orphan = [{"type": "message", "id": "c", "parentId": "gone", "message": {"role": "user"}}]
    assert [r["id"] for _o, r in current_branch(enumerate(orphan))] == ["c"]
    assert current_branch([]) == []
    assert current_branch([(0, {"type": "session"})]) == []


def test_odd_records_are_skipped_not_fatal() -> None:
    odd: list[dict[str, Any]] = [
        {"type": "message", "id": "1", "parentId": None, "message": "not an object"},
        {"type": "message", "id": "2", "parentId": "1", "message": {"role": "user", "content": 5}},
        {
            "type": "message",
            "id": "3",
            "parentId": "2",
            "message": {"role": "assistant", "content": [7, {"type": "toolCall"}]},
        },
        {
            "type": "message",
            "id": "4",
            "parentId": "3",
            "message": {"role": "toolResult", "toolCallId": "nope"},
        },
        {
            "type": "message",
            "id": "5",
            "parentId": "4",
            "message": {
                "role": "user",
                "content": [{"type": "image"}, {"type": "text", "text": "ok"}],
            },
        },
    ]
    turns = records_to_turns(enumerate(odd))
    assert [(t.role, t.text) for t in turns] == [("assistant", ""), ("user", "ok")]
    assert turns[0].tools[0].name == "tool"


def test_recent_user_texts_for_the_recall_query() -> None:
    assert recent_user_texts(_records(), 2) == [BRANCH_TURN, "A print-mode turn"]
    assert recent_user_texts(_records(), 0) == []
