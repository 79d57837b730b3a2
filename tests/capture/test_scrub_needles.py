"""The needles' occurrences: the automaton and the str.find searches give the same lists."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ovhooks.capture import scrub_needles
from ovhooks.capture.scrub_compiled import compiled as _rules

NEEDLES = ("pass", "key", "ss", "s", "passkey", "ke")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="paskey -x", max_size=200))
def test_automaton_and_searches_agree_with_overlaps(text: str) -> None:
    automaton = scrub_needles._automaton(NEEDLES)
    assert automaton is not None
    want = scrub_needles._find_hits(text, NEEDLES)
    assert scrub_needles._automaton_hits(automaton, text, NEEDLES) == want
    assert want["s"] == [i for i, ch in enumerate(text) if ch == "s"]


def test_long_texts_take_the_automaton_and_short_ones_the_searches(monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    used: list[str] = []
    real = scrub_needles._automaton_hits

    def counting(*args: Any) -> dict[str, list[int]]:
        used.append("automaton")
        return real(*args)

    monkeypatch.setattr(scrub_needles, "_automaton_hits", counting)
    needles = _rules().needles
    short = "the api key is here " * 10
    long = short * (scrub_needles.AUTOMATON_MIN_CHARS // len(short) + 1)
    assert scrub_needles.literal_hits(short, needles) == scrub_needles._find_hits(short, needles)
    assert used == []
    assert scrub_needles.literal_hits(long, needles) == scrub_needles._find_hits(long, needles)
    assert used == ["automaton"]
