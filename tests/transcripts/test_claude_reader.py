"""Claude Code transcripts -> Turns: the genuine fixture, the record shapes, subagent files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.transcripts.claude import (
    recent_user_texts,
    records_to_turns,
    subagent_files,
    subagent_task_from_own,
    subagent_task_from_parent,
)
from ovhooks.transcripts.reader import read_new
from tests.support.claude_transcripts import ClaudeTranscript


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    return [
        (i, json.loads(line))
        for i, line in enumerate(path.read_text().splitlines())
        if line.strip()
    ]


def test_fixture_session_turns(host_samples: Path) -> None:
    turns = records_to_turns(_records(host_samples / "claude" / "session-transcript.trimmed.jsonl"))
    pairs = [(t.role, t.text) for t in turns]
    users = [text for role, text in pairs if role == "user"]
    # the compaction summaries (isCompactSummary) and meta records never become turns
    assert not any("being continued from a previous conversation" in u for u in users)
    assert not any("Continue from where you left off" in u for u in users)
    assert not any("local-command-caveat" in u for u in users)
    assert users[:3] == [
        "hello first turn",
        "second turn RUNSHELL please",
        "third turn RUNAGENT please",
    ]
    assert users[-1] == "seventh turn, auto-compact expected"
    assistants = [t for t in turns if t.role == "assistant"]
    assert assistants[0].text == "STUB-REPLY #1"
    # the Bash call and its result belong to the assistant turn, not to a user turn
    bash = assistants[1]
    assert bash.text == "STUB-REPLY #3"
    assert [(u.name, u.output) for u in bash.tools] == [("Bash", "hello-from-shell")]
    agent = assistants[2]
    assert agent.tools[0].name == "Agent"
    assert (agent.tools[0].output or "").startswith("STUB-REPLY #5")
    assert assistants[-1].text == "STUB-REPLY #11"
    # attachments (hook context, skill and agent listings) are never turns
    assert not any("OVH-MARKER" in t.text for t in turns)


def test_fixture_subagent_turns(host_samples: Path) -> None:
    turns = records_to_turns(
        _records(host_samples / "claude" / "subagent-transcript.trimmed.jsonl")
    )
    assert [(t.role, t.text) for t in turns] == [
        ("user", "SUBAGENT-PROMPT say hi"),
        ("assistant", "STUB-REPLY #5"),
    ]


def test_uids_are_record_uuids_and_stable(host_samples: Path) -> None:
    records = _records(host_samples / "claude" / "session-transcript.trimmed.jsonl")
    first = records_to_turns(records)
    again = records_to_turns(records)
    assert [t.uid for t in first] == [t.uid for t in again]
    assert len({t.uid for t in first}) == len(first)
    assert first[0].uid == "73612e99-9f2e-4439-9885-5031f0451960"


def test_assistant_blocks_of_one_message_form_one_turn(tmp_path: Path) -> None:
    t = ClaudeTranscript(tmp_path, "s1", "/w")
    t.prompt("please read the parser module and explain it")
    t.thinking()
    t.assistant([{"type": "text", "text": "Let me read it."}], msg_id="msg_a")
    t.tool("Read", {"file_path": "/w/parser.py"}, "def parse(): pass")
    t.assistant([{"type": "text", "text": "It defines parse()."}], msg_id="msg_b")
    turns = records_to_turns(read_new(str(t.path), None).records)
    assert [(x.role, x.text) for x in turns] == [
        ("user", "please read the parser module and explain it"),
        ("assistant", "Let me read it.\n\nIt defines parse()."),
    ]
    assert turns[1].tools[0].name == "Read"


def test_inline_sidechain_records_stay_out_of_the_main_session(tmp_path: Path) -> None:
    # Older Claude builds wrote subagent records into the main transcript (no agentId).
    t = ClaudeTranscript(tmp_path, "s1", "/w")
    t.prompt("main prompt about the parser")
    t.user("subagent task text", isSidechain=True)
    t.assistant([{"type": "text", "text": "subagent answer"}])
    t.reply("main answer about the parser")
    lines = t.path.read_text().splitlines()
    # mark the subagent's assistant record as an inline sidechain too
    rec = json.loads(lines[-2])
    rec["isSidechain"] = True
    lines[-2] = json.dumps(rec)
    t.path.write_text("\n".join(lines) + "\n")
    texts = [x.text for x in records_to_turns(read_new(str(t.path), None).records)]
    assert texts == ["main prompt about the parser", "main answer about the parser"]


def test_recent_user_texts_skips_tool_results_and_meta(tmp_path: Path) -> None:
    t = ClaudeTranscript(tmp_path, "s1", "/w")
    t.prompt("first question")
    t.tool("Bash", {"command": "ls"}, "a b c")
    t.user([{"type": "text", "text": "Continue from where you left off."}], isMeta=True)
    t.prompt("second question")
    records = [r for _o, r in read_new(str(t.path), None).records]
    assert recent_user_texts(records, 5) == ["first question", "second question"]


def test_subagent_files_sit_beside_the_parent(tmp_path: Path) -> None:
    own, meta = subagent_files("/c/projects/-w/sess.jsonl", "a689683e094567dc3")
    assert own == "/c/projects/-w/sess/subagents/agent-a689683e094567dc3.jsonl"
    assert meta == "/c/projects/-w/sess/subagents/agent-a689683e094567dc3.meta.json"
    assert subagent_files("/c/projects/-w/sess.jsonl", "../../etc") == ("", "")
    assert subagent_files("/c/projects/-w/sess.txt", "a1") == ("", "")


def test_subagent_task_from_own_and_parent(tmp_path: Path, host_samples: Path) -> None:
    sub = [r for _i, r in _records(host_samples / "claude" / "subagent-transcript.trimmed.jsonl")]
    assert subagent_task_from_own(sub) == "SUBAGENT-PROMPT say hi"
    parent = [r for _i, r in _records(host_samples / "claude" / "session-transcript.trimmed.jsonl")]
    assert subagent_task_from_parent(parent, "toolu_stub_4") == "SUBAGENT-PROMPT say hi"
    assert subagent_task_from_parent(parent) == "SUBAGENT-PROMPT say hi"
    assert subagent_task_from_parent(parent[:5]) == ""
