from __future__ import annotations

import json
import time
from types import SimpleNamespace
from typing import Any

import pytest

from ovhooks.capture import CaptureOptions, build_messages
from ovhooks.model import ToolUse, Turn


def texts(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in messages:
        for p in m["parts"]:
            if p["type"] == "text":
                out.append(p["text"])
    return out


RECALL = '<openviking-context source="auto-recall">m</openviking-context>'


def test_semantic_mode_sends_clean_substantive_turns_in_order() -> None:
    turns = [
        Turn("user", RECALL + "\nuse sqlite for the cache", timestamp="t1", uid="u1"),
        Turn("assistant", "Sure, switching the cache to sqlite now.", timestamp="t2"),
        Turn("user", "ok"),
        Turn("user", "/compact"),
        Turn("assistant", "Done."),
        Turn("system", "a system message that must never be sent"),
    ]  # fmt: skip
    result = build_messages(turns, CaptureOptions())
    assert [m["role"] for m in result.messages] == ["user", "assistant"]
    assert texts(result.messages) == [
        "use sqlite for the cache",
        "Sure, switching the cache to sqlite now.",
    ]
    assert result.messages[0]["created_at"] == "t1"
    assert result.stats["skipped_ack"] == 2 and result.stats["skipped_slash"] == 1
    assert result.stats["skipped_role"] == 1 and result.stats["turns_sent"] == 2
    assert result.held == []


def test_secrets_are_scrubbed_everywhere_and_counted() -> None:
    key = "sk-proj-" + "Ab3dEf9hIjKlMn0pQrStUvWxYz1234567890"
    tool = ToolUse("Bash", {"command": f"OPENAI_API_KEY={key} run"}, "c1", output=f"echo {key}")
    turns = [
        Turn("user", f"here is my key {key} please configure it"),
        Turn("assistant", f"I will use {key}", (tool,)),
    ]
    result = build_messages(turns, CaptureOptions(tool_results=True))
    body = json.dumps(result.messages)
    assert key not in body
    assert result.stats["redacted_openai_key"] == 4


def test_scrub_off_still_removes_private_spans() -> None:
    turns = [Turn("user", "keep this <private>hide this</private> and the rest of it")]
    result = build_messages(turns, CaptureOptions(scrub=False))
    assert "hide" not in json.dumps(result.messages)


def test_tool_results_never_on_user_messages() -> None:
    tool = ToolUse(
        "Read", {"file_path": "a.py"}, "c1", output="<system-reminder>r</system-reminder>print(1)"
    )
    turns = [Turn("user", "read a.py and explain it", (tool,)), Turn("assistant", "", (tool,))]
    result = build_messages(turns, CaptureOptions(tool_results=True))
    user, assistant = result.messages
    assert all(p["type"] == "text" for p in user["parts"])
    parts = assistant["parts"]
    assert parts[0] == {"type": "text", "text": "Tools: Read(a.py)"}
    assert parts[1]["tool_output"] == "print(1)"


def test_assistant_noise_text_with_tools_keeps_the_tools() -> None:
    turns = [Turn("assistant", "ok", (ToolUse("Bash", {"command": "make test"}, "c"),))]
    result = build_messages(turns, CaptureOptions())
    parts = result.messages[0]["parts"]
    assert [p["type"] for p in parts] == ["text", "tool"]
    assert parts[0]["text"] == "Tools: Bash"


def test_assistant_capture_off() -> None:
    turns = [
        Turn("user", "please refactor the parser"),
        Turn("assistant", "Refactored the parser."),
    ]
    result = build_messages(turns, CaptureOptions(assistant=False))
    assert [m["role"] for m in result.messages] == ["user"]


def test_long_text_is_cut_head_and_tail() -> None:
    text = "HEAD " + "x" * 50000 + " TAIL"
    result = build_messages([Turn("user", text)], CaptureOptions(max_chars=1000))
    sent = texts(result.messages)[0]
    assert sent.startswith("HEAD") and sent.endswith("TAIL") and len(sent) < 1100
    assert result.stats["truncated"] == 1


def test_keyword_mode_holds_until_a_trigger() -> None:
    options = CaptureOptions(mode="keyword")
    first = build_messages(
        [
            Turn("user", "look at the failing build"),
            Turn("assistant", "The linker fails on arm64."),
        ],
        options,
    )
    assert first.messages == [] and len(first.held) == 2 and first.stats["held"] == 2
    second = build_messages(
        [
            Turn("user", "remember: we always build arm64 on CI"),
            Turn("assistant", "Noted, arm64 on CI."),
        ],
        options,
        held=first.held,
    )
    assert texts(second.messages) == [
        "look at the failing build",
        "The linker fails on arm64.",
        "remember: we always build arm64 on CI",
        "Noted, arm64 on CI.",
    ]
    assert second.held == [] and second.stats["held_released"] == 2


def test_keyword_mode_held_is_bounded() -> None:
    turns = [Turn("user", f"routine message number {i} about the build") for i in range(100)]
    result = build_messages(turns, CaptureOptions(mode="keyword"))
    assert result.messages == [] and len(result.held) == 40
    assert result.stats["held_dropped"] == 60


def test_held_is_released_when_mode_changes_to_semantic() -> None:
    held: list[dict[str, Any]] = [
        {"role": "user", "parts": [{"type": "text", "text": "old held turn"}]}
    ]
    result = build_messages([Turn("user", "a new substantive turn")], CaptureOptions(), held=held)
    assert texts(result.messages) == ["old held turn", "a new substantive turn"]


def test_from_settings() -> None:
    settings = SimpleNamespace(
        capture_mode="keyword", capture_assistant=False, capture_tool_results=True,
        capture_tool_result_chars=10, capture_max_chars=99, scrub=False, scrub_emails=True,
        scrub_phones=True,
    )  # fmt: skip
    opts = CaptureOptions.from_settings(settings)  # type: ignore[arg-type]
    assert (opts.mode, opts.assistant, opts.tool_results, opts.tool_result_chars) == (
        "keyword", False, True, 10,
    )  # fmt: skip
    assert (opts.max_chars, opts.scrub, opts.scrub_emails, opts.scrub_phones) == (
        99,
        False,
        True,
        True,
    )


def test_speed_100_turns() -> None:
    turns = []
    for i in range(50):
        turns.append(
            Turn("user", f"step {i}: please update the handler and run the tests again " * 3)
        )
        tools = (
            ToolUse("Edit", {"file_path": "m.py", "old_string": "a" * 2000, "new_string": "b"}),
            ToolUse("Bash", {"command": "pytest -q tests/"}, f"b{i}", output="." * 3000),
        )  # fmt: skip
        turns.append(Turn("assistant", "Updated the handler; tests pass. " * 10, tools))
    options = CaptureOptions()
    build_messages(turns, options)  # compile patterns once
    # CPU time, best of three: what the code costs, not how busy the machine is. One
    # wall-clock run measured the scheduler: at load 7-10 on a 2-core box it took 300-400 ms
    # (CPU 50-65 ms), and 400-1,350 ms traced as scripts/test's coverage floor runs it (CPU
    # 120-155 ms), against the bound of 500.
    cpu: list[float] = []
    for _ in range(3):
        start = time.process_time()
        result = build_messages(turns, options)
        cpu.append(time.process_time() - start)
    elapsed = min(cpu) * 1000
    print(
        f"\nbuild_messages: 100 turns in {elapsed:.1f} ms "
        f"({result.stats['bytes_in']} -> {result.stats['bytes_out']} bytes)"
    )
    assert len(result.messages) == 100
    assert elapsed < 500


def test_scrub_happens_before_the_cut_so_no_token_head_survives() -> None:
    """A token crossing the head/tail cut: cut first, its head would go out unrecognised."""
    limit = 24000
    head_room = limit * 2 // 3  # what cut_middle keeps of the head
    key = "sk-ant-api03-" + "Qx7LmP2vR9tZ4wK8nB1cY6hD3jF5gS0aE" * 3
    text = "word " * ((head_room - 20) // 5)
    text = text[: head_room - 20] + " " + key + " " + "tail words " * 2000
    turn = Turn("user", text, uid="u1")
    out = build_messages([turn], CaptureOptions(max_chars=limit))
    sent = json.dumps(out.messages)
    assert out.stats.get("truncated") == 1
    assert "sk-ant-api03-Qx7" not in sent and "Qx7LmP2vR9" not in sent


def test_options_repr_names_every_setting() -> None:
    options = CaptureOptions(mode="keyword", max_chars=99, scrub_phones=True)
    assert repr(options) == (
        "CaptureOptions(assistant=True, max_chars=99, mode='keyword', scrub=True, "
        "scrub_emails=False, scrub_phones=True, tool_result_chars=2000, tool_results=False)"
    )


def tool_inputs(result: Any) -> list[dict[str, Any]]:
    return [p["tool_input"] for m in result.messages for p in m["parts"] if p["type"] == "tool"]


def test_nul_bytes_and_empty_strings_in_tool_inputs() -> None:
    """NUL bytes never go out (the server rejects them); an empty string stays empty."""
    tools = (
        ToolUse("Bash", {"command": "printf 'a\x00b' > out.bin"}, "c1"),
        ToolUse("Edit", {"file_path": "a.py", "old_string": "", "new_string": "x = 1"}, "c2"),
    )
    result = build_messages([Turn("assistant", "", tools)], CaptureOptions())
    bash, edit = tool_inputs(result)
    assert bash["command"] == "printf 'ab' > out.bin"
    assert edit["old_chars"] == 0 and edit["old_preview"] == ""
    assert edit["new_preview"] == "x = 1"


def test_scrub_off_counts_private_spans_removed_from_tool_inputs() -> None:
    tool = ToolUse("Bash", {"command": "deploy --token <private>tok-123</private> now"}, "c1")
    result = build_messages([Turn("assistant", "", (tool,))], CaptureOptions(scrub=False))
    assert tool_inputs(result)[0]["command"] == "deploy --token  now"
    assert result.stats["redacted_private"] == 1


def test_turns_left_empty_by_sanitising_are_named_by_what_they_were() -> None:
    slash = "<command-name>/clear</command-name>\n<command-message>clear</command-message>"
    turns = [Turn("user", slash), Turn("user", "<system-reminder>be brief</system-reminder>")]
    result = build_messages(turns, CaptureOptions())
    assert result.messages == []
    assert result.stats["skipped_slash"] == 1 and result.stats["skipped_boilerplate"] == 1


def test_held_parts_that_are_not_objects_do_not_count_toward_the_bound() -> None:
    """Held messages come from the state file: a part that is no object weighs nothing."""
    big = "x" * 60_000
    odd: list[dict[str, Any]] = [{"role": "user", "parts": [big]}]
    kept = build_messages([], CaptureOptions(mode="keyword"), held=odd)
    assert kept.held == odd and "held_dropped" not in kept.stats
    heavy: list[dict[str, Any]] = [{"role": "user", "parts": [{"type": "text", "text": big}]}]
    dropped = build_messages([], CaptureOptions(mode="keyword"), held=heavy)
    assert dropped.held == [] and dropped.stats["held_dropped"] == 1


def test_keyword_trigger_with_nothing_held_sends_only_its_exchange() -> None:
    turns = [
        Turn("user", "remember: we always build arm64 on CI"),
        Turn("assistant", "Noted, arm64 on CI."),
    ]
    result = build_messages(turns, CaptureOptions(mode="keyword"))
    assert texts(result.messages) == [
        "remember: we always build arm64 on CI",
        "Noted, arm64 on CI.",
    ]
    assert result.held == [] and "held_released" not in result.stats


def test_text_the_scrubber_removes_entirely_is_not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Scrubbing is what is sent: if it leaves no text, a turn without tools is skipped and a
    turn with tools keeps only them. (No rule removes a whole text today; this pins the
    outcome for one that would, with a scrubber that deletes one word.)"""
    import ovhooks.capture.scrub as scrub_module

    def scrub_word(text: str, **_: object) -> tuple[str, dict[str, int]]:
        return text.replace("classified", ""), {}

    monkeypatch.setattr(scrub_module, "scrub", scrub_word)
    words = "classified " * 12
    tool = ToolUse("Bash", {"command": "make test"}, "c1")
    turns = [Turn("user", words), Turn("assistant", words, (tool,))]
    result = build_messages(turns, CaptureOptions())
    assert [m["role"] for m in result.messages] == ["assistant"]
    assert [p["type"] for p in result.messages[0]["parts"]] == ["text", "tool"]
    assert texts(result.messages) == ["Tools: Bash"]
    assert result.stats["skipped_empty"] == 1
