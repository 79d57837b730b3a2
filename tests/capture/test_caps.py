"""Queued messages stay within the text caps and hold no unpaired surrogates."""

from __future__ import annotations

import json
from pathlib import Path

from ovhooks.capture import CaptureOptions, build_messages
from ovhooks.capture.caps import MESSAGE_MAX_BYTES, PART_MAX_BYTES, cap_message, clean_surrogates
from ovhooks.model import Turn
from ovhooks.settings.config import load_settings


def _text_sizes(message: dict[str, object]) -> list[int]:
    parts = message["parts"]
    assert isinstance(parts, list)
    return [len(p["text"].encode("utf-8")) for p in parts if p.get("type") == "text"]


def test_lone_surrogates_are_replaced_and_pairs_kept() -> None:
    assert clean_surrogates("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert clean_surrogates("\ud83d\ude00 fine") == "\U0001f600 fine"
    assert clean_surrogates("plain é") == "plain é"


def test_parts_and_message_are_capped_on_utf8_boundaries() -> None:
    message = {
        "role": "assistant",
        "parts": [
            {"type": "text", "text": "é" * 30_000},
            {"type": "text", "text": "x" * 40_000},
            {"type": "text", "text": "y" * 40_000},
            {"type": "text", "text": "z" * 40_000},
            {"type": "tool", "tool_name": "Bash", "tool_output": "bin\udc80ary"},
        ],
    }
    out = cap_message(message)
    sizes = _text_sizes(out)
    assert all(size <= PART_MAX_BYTES for size in sizes)
    assert sum(sizes) <= MESSAGE_MAX_BYTES
    assert out["parts"][-1]["tool_output"] == "bin\ufffdary"
    json.dumps(out, ensure_ascii=False).encode("utf-8")  # serializable as strict UTF-8
    assert "cut:" in out["parts"][0]["text"]


def test_small_messages_are_unchanged() -> None:
    message = {"role": "user", "parts": [{"type": "text", "text": "short"}]}
    assert cap_message(message) == message


def test_build_messages_queues_only_acceptable_records(tmp_path: Path) -> None:
    settings = load_settings({"OVHOOKS_STATE_DIR": str(tmp_path)})
    turns = [
        Turn("user", "please look at this log " + "L" * 300_000, uid="u1"),
        Turn("assistant", "it says \ud800 at the end", uid="a1"),
    ]
    result = build_messages(turns, CaptureOptions.from_settings(settings))
    for message in result.messages:
        assert sum(_text_sizes(message)) <= MESSAGE_MAX_BYTES
        json.dumps(message, ensure_ascii=False).encode("utf-8")


def test_content_beside_parts_is_capped_and_a_non_list_parts_is_only_cleaned() -> None:
    long = "é" * MESSAGE_MAX_BYTES  # two bytes each: twice the message cap
    capped = cap_message({"role": "user", "parts": [], "content": long})
    assert len(capped["content"].encode("utf-8")) <= MESSAGE_MAX_BYTES
    assert capped["content"].startswith("éé") and "more bytes]" in capped["content"]
    odd = cap_message({"role": "user", "parts": "not a list", "meta": ["a\ud800", 3, None]})
    assert odd == {"role": "user", "parts": "not a list", "meta": ["a\ufffd", 3, None]}


def test_parts_past_the_message_budget_are_dropped_and_counted() -> None:
    parts = [{"type": "text", "text": "x" * PART_MAX_BYTES} for _ in range(4)]
    counted: dict[str, int] = {}
    for stats in (None, counted):
        capped = cap_message({"role": "assistant", "parts": parts}, stats)
        total = sum(len(p["text"].encode("utf-8")) for p in capped["parts"])
        assert len(capped["parts"]) == 3 and total <= MESSAGE_MAX_BYTES
    assert counted == {"parts_dropped_over_cap": 1}


def test_cut_middle_keeps_head_and_tail_within_the_limit() -> None:
    from ovhooks.capture.caps import cut_middle

    for limit in (121, 200, 1000, 2000, 24000):
        for size in (limit + 1, limit + 50, 10 * limit, 2_000_003):
            text = "".join(chr(ord("a") + i % 26) for i in range(size))
            out = cut_middle(text, limit)
            head, mark, tail = out.split("\n")
            omitted = int(mark.removeprefix("… [").removesuffix(" chars omitted] …"))
            assert len(out) <= limit, (limit, size)
            assert len(head) == limit * 2 // 3 and text.startswith(head)
            assert tail and text.endswith(tail) and len(head) + omitted + len(tail) == size
    assert cut_middle("x" * 50, 0) == "x" * 50 and cut_middle("short", 10) == "short"
    small = cut_middle("y" * 500, 90)  # too little room for a tail: the head only
    assert small == "y" * 60 + "\n… [440 chars omitted] …"
