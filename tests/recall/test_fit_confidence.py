"""scripts/fit_confidence.py on hand-built traced server rows: which strength each shown
memory is read at, what the operating curve counts, and that the fit orders probabilities
the way the labels do."""

from __future__ import annotations

from typing import Any

from ovhooks.recall.confidence import probability
from tests.support.scripts import load_script

fit_confidence = load_script("fit_confidence")
M = "viking://user/default/memories/preferences/default"


def _item(uri: str, shows: list[str], strength: float, **evidence: Any) -> dict[str, Any]:
    return {
        "uri": f"{M}/{uri}.md",
        "shows": shows,
        "decision": "injected",
        "strength": strength,
        "evidence": evidence,
    }


def _row(cls: str, expected: list[str], *items: dict[str, Any]) -> dict[str, Any]:
    dropped = {"uri": f"{M}/other.md", "shows": ["m9"], "decision": "dropped", "strength": 9.0}
    return {
        "class": cls,
        "split": "dev",
        "expected": expected,
        "trace": {"candidates": [*items, dropped]},
    }


def test_each_shown_memory_is_read_at_the_strength_it_was_admitted_on() -> None:
    row = _row(
        "direct",
        ["m1"],
        _item("server", ["m1"], 6.0, decision="server", semantic=1.0),
        _item("added", ["m2"], -1.0, decision="semantic", semantic=4.5),
        _item("bridged", ["m3"], 8.0, decision="dropped", bridged=True),
    )
    # the dropped candidate is not shown; the bridged one has no strength of its own
    assert fit_confidence.server_items(row) == [(6.0, True), (4.5, False), (None, False)]


def test_the_curve_counts_hits_clean_prompts_and_precision_on_relevant_prompts() -> None:
    rows = [
        _row("direct", ["m1"], _item("a", ["m1"], 8.0), _item("b", ["m2"], 1.0)),
        _row("unrelated", [], _item("c", ["m3"], 1.0)),
    ]
    at_zero = fit_confidence.server_replay(rows, -2.5, 0.6, 0.0)
    assert (at_zero["direct"], at_zero["unrelated"], at_zero["precision"]) == (1.0, 0.0, 0.5)
    # at 0.5 the two weak memories go: the hit stays, the unrelated prompt is clean
    cut = fit_confidence.server_replay(rows, -2.5, 0.6, 0.5)
    assert (cut["direct"], cut["unrelated"], cut["precision"]) == (1.0, 1.0, 1.0)


def test_the_fit_gives_right_memories_the_higher_probability() -> None:
    points = [(s, s > 4.0) for s in (0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0)] + [(3.5, True)]
    a, b = fit_confidence.fit(points)
    assert b > 0 and probability(7.0, a, b) > 0.8 and probability(1.0, a, b) < 0.2
