"""Search terms and commit extraction of the local store (pure functions)."""

from __future__ import annotations

from typing import Any

import pytest

from ovhooks.backend.local.extraction import classify, memory_candidates
from ovhooks.backend.local.messages import sentences
from ovhooks.backend.local.overview import build_overview
from ovhooks.lexical.text import normalise, query_terms, stem, terms


def test_english_words_are_lowercased_stemmed_and_stop_words_dropped() -> None:
    assert terms("I prefer Tabs over the spaces") == ["prefer", "tab", "space"]


def test_identifiers_keep_underscores_and_digits() -> None:
    assert terms("set keep_recent_count to 10 in v2") == ["set", "keep_recent_count", "10", "v2"]


def test_chinese_runs_become_bigrams_without_function_characters() -> None:
    # 我 and 的 are function characters: no bigram containing them survives.
    assert terms("我喜欢缩进的方式") == ["喜欢", "欢缩", "缩进", "方式"]


def test_mixed_text_splits_cjk_from_latin() -> None:
    assert terms("用pnpm管理依赖") == ["用", "pnpm", "管理", "理依", "依赖"]


def test_single_cjk_character_is_kept_unless_a_function_character() -> None:
    assert terms("猫 的") == ["猫"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("files", "file"),
        ("libraries", "library"),
        ("patches", "patch"),
        ("status", "status"),
        ("class", "class"),
        ("tabs", "tab"),
        ("is", "is"),
    ],
)
def test_stem_only_strips_plurals(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_query_terms_are_distinct_and_capped() -> None:
    assert query_terms("tab tab space tabs") == ["tab", "space"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)), limit=5)) == 5


def test_normalise_ignores_case_and_punctuation() -> None:
    assert normalise("I prefer TABS, always!") == normalise("i prefer tabs always")
    assert normalise("以后用两个空格。") == "以后用两个空格"


def test_sentences_split_english_and_chinese() -> None:
    text = "First one. Second one!\n- third\n第一句。第二句！"
    assert sentences(text) == ["First one.", "Second one!", "third", "第一句。", "第二句！"]


@pytest.mark.parametrize(
    ("text", "category", "project"),
    [
        ("I prefer tabs over spaces for indentation.", "preferences", False),
        ("Never use print for logging in this project.", "preferences", True),
        ("We decided to use httpx for the client.", "events", True),
        ("My name is Ada and my email is ada@example.com.", "entities", False),
        ("Remember that the staging database is read-only.", "entities", True),
        ("以后请用两个空格缩进，我喜欢这样。", "preferences", False),
        ("我们决定改用 pnpm 管理依赖。", "events", True),
        ("我叫小明，在上海工作。", "entities", False),
    ],
)
def test_classify_triggers(text: str, category: str, project: bool) -> None:
    candidate = classify(text)
    assert candidate is not None
    assert (candidate.category, candidate.project) == (category, project)


@pytest.mark.parametrize(
    "text",
    [
        "Do you prefer tabs?",  # a question states nothing
        "你喜欢什么缩进？",
        "/compact always",  # a command
        "ok",  # too short
        "Please fix the failing test in parser.py.",  # a request, no trigger
    ],
)
def test_classify_rejects(text: str) -> None:
    assert classify(text) is None


def test_candidates_ignore_code_and_injected_blocks() -> None:
    text = (
        "<relevant-memories>I prefer vim.</relevant-memories>\n"
        "```\n# always do this in code\n```\n"
        "I always want type hints on public functions."
    )
    assert [c.text for c in memory_candidates([text])] == [
        "I always want type hints on public functions."
    ]


def test_overview_lists_requests_decisions_files_and_commands() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Fix the flaky retry test. We decided to keep pytest."},
        {
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "Looking."},
                {"type": "tool", "tool_name": "Read", "tool_input": {"file_path": "tests/a.py"}},
                {"type": "tool", "tool_name": "Bash", "tool_input": {"command": "pytest -x\nls"}},
                {
                    "type": "tool",
                    "tool_name": "apply_patch",
                    "tool_input": "*** Begin Patch\n*** Update File: src/retry.py\n*** End Patch",
                },
            ],
        },
    ]
    overview = build_overview(messages, "Session s, archive 001")
    text = overview.text
    assert "- Fix the flaky retry test." in text
    assert "- We decided to keep pytest." in text
    assert "- tests/a.py" in text and "- src/retry.py" in text
    assert "- `pytest -x`" in text
    assert "Bash ×1" in text
    assert overview.abstract.startswith("2 messages, 1 from the user; first request: Fix")
