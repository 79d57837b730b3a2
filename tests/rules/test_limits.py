"""The limits stated once (``ovhooks.rules.limits``)."""

from __future__ import annotations

from ovhooks.rules.limits import MEMORY_MAX_BYTES, memory_size_problem


def test_a_memory_up_to_the_limit_passes_and_one_byte_more_is_refused_in_words() -> None:
    assert memory_size_problem("x" * MEMORY_MAX_BYTES) == ""
    problem = memory_size_problem("x" * (MEMORY_MAX_BYTES + 1))
    assert f"{MEMORY_MAX_BYTES + 1:,} bytes" in problem and f"{MEMORY_MAX_BYTES:,}" in problem


def test_the_limit_counts_bytes_not_characters() -> None:
    text = "é" * (MEMORY_MAX_BYTES // 2 + 1)  # two bytes each in UTF-8
    assert len(text) < MEMORY_MAX_BYTES and memory_size_problem(text)
    assert memory_size_problem("\ud800") == ""  # a lone surrogate is counted, never a crash
