"""The real host transcripts, run through capture turn by turn (tests/fixtures/host-samples)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from ovhooks.capture import CaptureOptions, build_messages
from ovhooks.capture.noise import is_noise
from ovhooks.model import ToolUse, Turn
from tests.support.fixture_turns import claude_turns, codex_turns, load

FORBIDDEN = (
    "<openviking-context", "OVH-MARKER", "<environment_context", "AGENTS.md", "<INSTRUCTIONS",
    "<skills_instructions", "<command-name", "<command-message", "<local-command",
    "<system-reminder", "This session is being continued", "Another language model started",
    "Continue from where you left off", "No response requested",
)  # fmt: skip

CASES = {
    "codex": ("codex/rollout-transcript.trimmed.jsonl", codex_turns),
    "claude": ("claude/session-transcript.trimmed.jsonl", claude_turns),
    "claude-subagent": ("claude/subagent-transcript.trimmed.jsonl", claude_turns),
}


def real_user_prompts(host: str, records: list[dict[str, Any]]) -> list[str]:
    """What the user actually typed, from records capture never reads (an independent oracle)."""
    if host == "codex":
        return [
            block["text"]
            for r in records
            if r.get("type") == "event_msg" and r["payload"].get("type") == "item_completed"
            and r["payload"]["item"].get("type") == "UserMessage"
            for block in r["payload"]["item"]["content"]
        ]  # fmt: skip
    if host == "claude":
        return [
            r["content"]
            for r in records
            if r.get("type") == "queue-operation" and r.get("operation") == "enqueue"
        ]
    return [records[0]["message"]["content"]]  # a subagent's prompt is its first record


def sent_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for m in messages for p in m["parts"] if p["type"] == "text"]


@pytest.mark.parametrize("leak", [False, True], ids=["reader", "leaky-reader"])
@pytest.mark.parametrize("host", list(CASES))
def test_fixture_turn_by_turn(host_samples: Path, host: str, leak: bool) -> None:
    path, reader = CASES[host]
    records = load(host_samples / path)
    turns = reader(records, leak=leak)
    prompts = real_user_prompts(host, records)
    substantive_prompts = [p for p in prompts if is_noise(p, "user") is None]
    assert substantive_prompts, "the oracle found no real prompts"
    kept_user: list[str] = []
    for turn in turns:
        result = build_messages([turn], CaptureOptions())
        body = json.dumps(result.messages, ensure_ascii=False)
        for marker in FORBIDDEN:
            assert marker not in body, (host, turn.uid, marker)
        for message in result.messages:
            assert message["role"] == turn.role in ("user", "assistant")
            if message["role"] == "user":
                assert all(p["type"] == "text" for p in message["parts"])
            for text in sent_texts([message]):
                assert is_noise(text, turn.role) is None or text.startswith("Tools: ")
                assert not text.startswith("/")
        if turn.role == "user":
            if result.messages:
                kept_user.append(sent_texts(result.messages)[0])
        elif turn.tools or turn.text.startswith("STUB-REPLY"):
            # every assistant reply and every tool call of the agent is kept
            assert len(result.messages) == 1, (host, turn.uid)
            if turn.tools:
                parts = result.messages[0]["parts"]
                assert [p["tool_id"] for p in parts if p["type"] == "tool"] == [
                    t.call_id for t in turn.tools
                ]
                assert all("tool_output" not in p for p in parts)  # results dropped by default
        else:
            assert not result.messages, (host, turn.uid, turn.text)
    # every substantive user prompt is kept, exactly, and nothing else from the user side
    assert kept_user == substantive_prompts


def test_injected_context_reaches_capture_only_in_leaky_mode(host_samples: Path) -> None:
    # guard for the test above: the leaky reader really does feed injected blocks in
    for host in ("codex", "claude"):
        path, reader = CASES[host]
        raw = " ".join(t.text for t in reader(load(host_samples / path), leak=True))
        assert "<openviking-context" in raw and "OVH-MARKER" in raw


def _tool_heavy_session(n_turns: int = 200) -> list[Turn]:
    rng = random.Random(5)
    turns = []
    for i in range(n_turns // 2):
        turns.append(
            Turn(
                "user",
                f"Step {i}: add the {rng.choice(['cache', 'parser', 'cli'])} module and test it.",
            )
        )
        body = "\n".join(
            f"def f{j}(x):\n    return x * {j}\n" for j in range(rng.randint(150, 400))
        )
        path = f"src/mod{i}.py"
        edit = {"file_path": path, "old_string": body[:3000], "new_string": body[:3500]}
        test_output = "." * rng.randint(2000, 20000) + "\n1 passed"
        tools = (
            ToolUse("Write", {"file_path": path, "content": body}, f"w{i}", output="ok"),
            ToolUse("Edit", edit, f"e{i}", output="ok"),
            ToolUse("Bash", {"command": f"pytest -q tests/test_mod{i}.py"}, f"b{i}", test_output),
            ToolUse("Read", {"file_path": path}, f"r{i}", output=body),
        )
        turns.append(Turn("assistant", f"Added src/mod{i}.py with its tests; all pass.", tools))
    return turns


def test_bytes_sent_versus_transcript(host_samples: Path) -> None:
    lines = ["", "bytes sent vs transcript bytes:"]
    for host, (path, reader) in CASES.items():
        file_bytes = (host_samples / path).stat().st_size
        result = build_messages(reader(load(host_samples / path)), CaptureOptions())
        out = result.stats["bytes_out"]
        lines.append(
            f"  {host:16s} transcript {file_bytes:7d} B,"
            f" turn content {result.stats['bytes_in']:6d} B,"
            f" sent {out:6d} B ({100 * out / file_bytes:.1f} % of the file)"
        )
        assert out < file_bytes / 5
    heavy = _tool_heavy_session()
    for label, options in (
        ("default", CaptureOptions()),
        ("tool results on", CaptureOptions(tool_results=True)),
    ):
        result = build_messages(heavy, options)
        bytes_in, bytes_out = result.stats["bytes_in"], result.stats["bytes_out"]
        lines.append(
            f"  tool-heavy 200 turns ({label}): turn content {bytes_in} B, sent {bytes_out} B"
            f" ({100 * bytes_out / bytes_in:.1f} %, {bytes_in / bytes_out:.1f}x smaller)"
        )
        assert len(result.messages) == 200
        assert bytes_out < bytes_in / (10 if label == "default" else 3)
    print("\n".join(lines))
