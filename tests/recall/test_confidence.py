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
    for strength in (2.0, 6.0):
        later = confidence.server_probability(strength, later=True)
        assert later is not None and later < (confidence.server_probability(strength) or 0.0)


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


def test_a_server_memory_is_weighed_on_the_strength_it_was_admitted_on() -> None:
    chosen, added, bridged = _items(0.8, 0.4, 0.9)
    # chosen by the server's rule (the local model only annotated it): the server's strength
    chosen.evidence = {"semantic": 1.0, "server": 7.0, "decision": "server"}
    assert confidence.admitted_strength(chosen, 7.0) == 7.0
    # added by the local model: its strength, not the server's
    added.evidence = {"semantic": 5.5, "server": -1.0, "decision": "semantic"}
    assert confidence.admitted_strength(added, -1.0) == 5.5
    # found only by the bridged search: its score answers another query
    bridged.bridged = True
    assert confidence.admitted_strength(bridged, 9.0) is None
    assert confidence.admitted_strength(_items(0.5)[0], 3.0) == 3.0  # no local signal


def test_the_server_probability_rises_with_strength_and_is_unknown_without_one() -> None:
    values = [confidence.server_probability(s) or 0.0 for s in (-2.0, 2.0, 6.0, 10.0)]
    assert values[0] > 0.0 and values[-1] < 1.0
    assert values == sorted(values) and len(set(values)) == len(values)
    assert confidence.server_probability(None) is None


@pytest.mark.parametrize("raw", ["1.5", "-0.1", "high"])
def test_a_value_that_is_no_probability_is_a_warning_and_the_default(raw: str) -> None:
    settings = load_settings({"OVHOOKS_RECALL_MIN_CONFIDENCE": raw})
    assert settings.recall_min_confidence == 0.0
    assert any(w.startswith("recall_min_confidence from ") for w in settings.warnings)
    assert load_settings({"OVHOOKS_RECALL_MIN_CONFIDENCE": "0.7"}).recall_min_confidence == 0.7
