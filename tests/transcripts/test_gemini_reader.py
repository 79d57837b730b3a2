"""Gemini CLI chat recordings -> Turns, on the recording of the real CLI 0.61.0
(tests/fixtures/gemini, scripts/record_gemini_fixtures.py) and on the record shapes it
writes less often (rewinds, rewritten ids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.transcripts import gemini
from ovhooks.transcripts.reader import read_new

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini"
TRANSCRIPT = FIXTURES / "session-transcript.jsonl"
PROMPTS = [
    "hello first turn",
    "second turn RUNSHELL please",
    "third turn READVIKING please",
    "fourth turn RUNSHELL BIGTOKENS please",
    "fifth turn after the compression",
]


def _turns_of(path: Path, cursor: dict[str, Any] | None = None) -> list[Any]:
    return gemini.records_to_turns(read_new(str(path), cursor).records)


def test_the_recorded_session_reads_as_the_five_prompts_and_their_replies() -> None:
    turns = _turns_of(TRANSCRIPT)
    assert [t.text for t in turns if t.role == "user"] == PROMPTS
    replies = [t.text for t in turns if t.role == "assistant" and t.text]
    assert len(replies) == 5 and all(r.startswith("STUB-REPLY #") for r in replies)
    assert len({t.uid for t in turns}) == len(turns)


def test_injected_context_session_context_and_the_compression_lists_are_never_turns() -> None:
    raw = TRANSCRIPT.read_text(encoding="utf-8")
    # the recording does hold all of these (so the test can fail)...
    for needle in ("<hook_context>", "<session_context>", "STUB-COMPRESS-SUMMARY", "Got it."):
        assert needle in raw
    # ...and none of it is conversation
    for turn in _turns_of(TRANSCRIPT):
        for needle in ("hook_context", "OVH-MARKER", "session_context", "STUB-COMPRESS", "Got it."):
            assert needle not in turn.text, turn


def test_tool_calls_are_their_own_turn_with_the_result_and_the_error() -> None:
    calls = [tool for t in _turns_of(TRANSCRIPT) for tool in t.tools]
    assert [c.name for c in calls] == ["run_shell_command", "read_file", "run_shell_command"]
    shell, viking, _again = calls
    assert shell.input == {"command": "echo hello-from-shell"} and not shell.is_error
    assert "hello-from-shell" in (shell.output or "")
    assert viking.input["file_path"].startswith("viking://") and viking.is_error
    tool_turns = [t for t in _turns_of(TRANSCRIPT) if t.tools]
    assert all(t.uid.endswith("#tools") and t.text == "" for t in tool_turns)


def test_reading_in_pieces_gives_each_turn_once(tmp_path: Path) -> None:
    """The worker reads from a byte cursor: hook by hook, each turn appears in one piece only,
    and a reply re-appended with its tool calls adds only the calls."""
    data = TRANSCRIPT.read_bytes()
    log = [json.loads(line) for line in (FIXTURES / "hook-log.jsonl").read_text().splitlines()]
    cuts = sorted({e["transcript_bytes"] for e in log if e["transcript_bytes"]} | {len(data)})
    growing = tmp_path / "session.jsonl"
    cursor: dict[str, Any] | None = None
    seen: list[str] = []
    texts: list[str] = []
    for cut in cuts:
        growing.write_bytes(data[:cut])
        result = read_new(str(growing), cursor)
        cursor = result.cursor
        for turn in gemini.records_to_turns(result.records):
            if turn.uid not in seen:  # what the worker's recent_uids does
                seen.append(turn.uid)
                texts.append(turn.text or "+".join(t.name for t in turn.tools))
    whole = [t.text or "+".join(x.name for x in t.tools) for t in _turns_of(TRANSCRIPT)]
    assert texts == whole


def _record(message_id: str, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"id": message_id, "timestamp": "2026-01-01T00:00:00Z", "type": kind, **extra,
            "content": content}  # fmt: skip


def _turns(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    pairs = list(enumerate(records))
    return [(t.role, t.text) for t in gemini.records_to_turns(pairs)]


def test_the_last_version_of_an_id_wins_at_the_place_of_the_first() -> None:
    records = [
        _record("u1", "user", [{"text": "first"}]),
        _record("g1", "gemini", "draft"),
        _record("u2", "user", [{"text": "second"}]),
        _record("g1", "gemini", "final answer"),
    ]
    assert _turns(records) == [
        ("user", "first"),
        ("assistant", "final answer"),
        ("user", "second"),
    ]


def test_a_rewind_drops_the_message_and_everything_after_it() -> None:
    records = [
        _record("u1", "user", "keep me"),
        _record("g1", "gemini", "kept"),
        _record("u2", "user", "rewound away"),
        _record("g2", "gemini", "gone too"),
        {"$rewindTo": "u2"},
        _record("u3", "user", "after the rewind"),
        {"$rewindTo": "not-in-this-read"},  # rewinds past what this read holds: nothing to undo
    ]
    assert _turns(records) == [
        ("user", "keep me"),
        ("assistant", "kept"),
        ("user", "after the rewind"),
    ]


def test_set_lists_headers_info_records_and_slash_commands_are_skipped() -> None:
    records: list[dict[str, Any]] = [
        {"sessionId": "s", "projectHash": "p", "startTime": "t", "kind": "main"},
        {"$set": {"messages": [_record("x", "user", "from a $set list")]}},
        _record("i1", "info", "Switched model"),
        _record("e1", "error", "quota"),
        _record("c1", "user", "/compress"),
        _record("c2", "user", "/usr/bin is where python lives"),
        _record("t1", "gemini", [{"text": "hidden", "thought": True}, {"text": "shown"}]),
        _record("f1", "user", [{"functionResponse": {"name": "x", "response": {"output": "o"}}}]),
    ]
    assert _turns(records) == [
        ("user", "/usr/bin is where python lives"),
        ("assistant", "shown"),
    ]


def test_user_text_strips_hook_context_blocks_but_keeps_the_users_angle_brackets() -> None:
    content = [
        {"text": "<hook_context>ctx &lt;a&gt;</hook_context>\n\nuse <T> generics"},
        {"text": "<hook_context>recall &lt;openviking-context&gt;</hook_context>"},
    ]
    assert gemini.user_text(content) == "use <T> generics"
    assert gemini.user_text([{"text": "<hook_context>never closed"}]) == ""


def test_odd_shapes_never_raise() -> None:
    records: list[dict[str, Any]] = [
        _record("a", "gemini", None, toolCalls="x"),
        _record("b", "gemini", 5, toolCalls=[5, {"name": None, "args": [], "result": {"x": 1}}]),
        _record("c", "user", {"text": "a dict, not a list"}),
        {"id": 7, "type": "user", "content": "id not a string"},
        {"$rewindTo": 3},
    ]
    turns = gemini.records_to_turns(list(enumerate(records)))
    assert [(t.role, t.text) for t in turns] == [("assistant", ""), ("user", "a dict, not a list")]
    assert turns[0].tools[0].name == "tool"


def test_recent_user_texts_for_the_recall_query() -> None:
    records = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    assert gemini.recent_user_texts(records, 2) == PROMPTS[-2:]
    assert gemini.recent_user_texts(records, 0) == []
