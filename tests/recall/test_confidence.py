"""recall/confidence.py: the fitted probability and the user's minimum (pure)."""

from __future__ import annotations

import pytest

from ovhooks.recall import confidence
from ovhooks.recall.rank import Candidate
from ovhooks.settings.config import load_settings


def _items(*scores: float) -> list[Candidate]:
    return [
        Candidate(f"viking://user/u/memories/m{n}.md", "preferences", s, "t")
        for n, s in enumerate(scores)
    ]


def test_the_probability_rises_with_the_score_from_the_bar_up() -> None:
    values = [confidence.probability(s) for s in (0.3, 0.55, 0.7, 0.9, 1.2)]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert 0.0 < values[0] < values[-1] < 1.0
    assert confidence.probability(-1e6) == 0.0  # no overflow far below


def test_a_memory_after_a_better_one_is_less_likely_right_at_the_same_score() -> None:
    for score in (0.55, 0.7, 0.9):
        assert confidence.probability(score, later=True) < confidence.probability(score)


def _given(*scores: float) -> list[Candidate]:
    """Items as the decision hands them over: each with its local probability."""
    items = _items(*scores)
    for item in items:
        item.confidence = confidence.probability(item.score)
    return items


def test_at_zero_nothing_is_dropped() -> None:
    kept, dropped = confidence.apply(_given(0.56, 0.9), 0.0)
    assert [c.score for c in kept] == [0.56, 0.9] and dropped == []


def test_a_minimum_drops_the_items_under_it_and_keeps_the_order() -> None:
    items = _given(0.9, 0.56, 0.95)
    cut = (confidence.probability(0.56) + confidence.probability(0.9)) / 2
    kept, dropped = confidence.apply(items, cut)
    assert [c.score for c in kept] == [0.9, 0.95] and [c.score for c in dropped] == [0.56]


def test_an_unknown_probability_is_never_dropped() -> None:
    kept, dropped = confidence.apply(_items(0.56), 0.99)
    assert len(kept) == 1 and dropped == [] and kept[0].confidence is None


@pytest.mark.parametrize("raw", ["1.5", "-0.1", "high"])
def test_a_value_that_is_no_probability_is_a_warning_and_the_default(raw: str) -> None:
    settings = load_settings({"OVHOOKS_RECALL_MIN_CONFIDENCE": raw})
    assert settings.recall_min_confidence == 0.0
    assert any(w.startswith("recall_min_confidence from ") for w in settings.warnings)
    assert load_settings({"OVHOOKS_RECALL_MIN_CONFIDENCE": "0.7"}).recall_min_confidence == 0.7
