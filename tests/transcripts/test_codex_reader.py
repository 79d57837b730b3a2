"""Codex rollout records → turns, on the genuine 0.169 sample."""

from __future__ import annotations

from pathlib import Path

from ovhooks.transcripts.codex import recent_user_texts, records_to_turns
from ovhooks.transcripts.reader import read_new, read_tail


def test_fixture_rollout_turns(host_samples: Path) -> None:
    path = host_samples / "codex" / "rollout-transcript.trimmed.jsonl"
    turns = records_to_turns(read_new(str(path), None).records)
    assert [(t.role, t.text) for t in turns] == [
        ("user", "hello first turn"),
        ("assistant", "STUB-REPLY #1"),
        ("user", "second turn RUNSHELL please"),
        ("assistant", "STUB-REPLY #3"),
        ("user", "third turn after compaction"),
        ("assistant", "STUB-REPLY #5"),
    ]
    # developer messages (hook context), <environment_context> and the compaction summary
    # reply (STUB-REPLY #4) are not conversation
    shell = turns[3].tools
    assert len(shell) == 1 and shell[0].name == "exec_command"
    assert shell[0].input == {"cmd": "echo hello-from-shell"}
    assert "hello-from-shell" in (shell[0].output or "")
    assert len({t.uid for t in turns}) == len(turns)


def test_recent_user_texts(host_samples: Path) -> None:
    records = read_tail(str(host_samples / "codex" / "rollout-transcript.trimmed.jsonl"))
    assert recent_user_texts(records, 2) == [
        "second turn RUNSHELL please",
        "third turn after compaction",
    ]


def test_custom_and_local_shell_tools_are_kept() -> None:
    records = [
        (
            0,
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "id": "u1",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "patch it"}],
                },
            },
        ),
        (
            1,
            {
                "type": "response_item",
                "payload": {
                    "type": "custom_tool_call",
                    "call_id": "c1",
                    "name": "apply_patch",
                    "input": "*** Begin Patch\n*** End Patch",
                },
            },
        ),
        (
            2,
            {
                "type": "response_item",
                "payload": {"type": "custom_tool_call_output", "call_id": "c1", "output": "Done"},
            },
        ),
        (
            3,
            {
                "type": "response_item",
                "payload": {
                    "type": "local_shell_call",
                    "call_id": "c2",
                    "action": {"command": ["ls"]},
                },
            },
        ),
        (4, {"type": "response_item", "payload": {"type": "reasoning", "summary": []}}),
    ]
    turns = records_to_turns(records)
    assert [t.role for t in turns] == ["user", "assistant"]
    names = [tool.name for tool in turns[1].tools]
    assert names == ["apply_patch", "local_shell"]
    assert turns[1].tools[0].output == "Done"
