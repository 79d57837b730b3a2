"""scripts/fit_confidence.py on hand-built traced server rows: which strength each shown
memory is read at, what the operating curve counts, and that the fit orders probabilities
the way the labels do."""

from __future__ import annotations

from typing import Any

from ovhooks.recall.confidence import Model, probability
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
    assert fit_confidence.server_items(row) == [
        (6.0, False, True),
        (4.5, True, False),
        (None, True, False),
    ]


def test_the_curve_counts_hits_clean_prompts_and_precision_on_relevant_prompts() -> None:
    rows = [
        _row("direct", ["m1"], _item("a", ["m1"], 8.0), _item("b", ["m2"], 1.0)),
        _row("unrelated", [], _item("c", ["m3"], 1.0)),
    ]
    model = Model(-2.5, 0.6, 0.0)
    at_zero = fit_confidence.server_replay(rows, model, 0.0)
    assert (at_zero["direct"], at_zero["unrelated"], at_zero["precision"]) == (1.0, 0.0, 0.5)
    # at 0.5 the two weak memories go: the hit stays, the unrelated prompt is clean
    cut = fit_confidence.server_replay(rows, model, 0.5)
    assert (cut["direct"], cut["unrelated"], cut["precision"]) == (1.0, 1.0, 1.0)


def test_the_fit_gives_right_memories_the_higher_probability() -> None:
    points = [(s, False, s > 4.0) for s in (0.0, 1.0, 2.0, 3.0, 5.0, 6.0, 7.0, 8.0)]
    model = fit_confidence.fit([*points, (3.5, False, True)])
    assert model.slope > 0
    assert probability(7.0, False, model) > 0.8 and probability(1.0, False, model) < 0.2


def test_a_memory_shown_after_a_better_one_is_given_less_when_the_labels_say_so() -> None:
    # at each strength the first memory is right and the one after it is not
    first = [(s, False, s > 2.0) for s in (0.0, 1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)]
    later = [(s, True, s > 6.0) for s in (0.0, 1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)]
    points = first + later
    model = fit_confidence.fit(points)
    alone = fit_confidence.fit(points, later=False)
    assert model.later < -1.0 and alone.later == 0.0
    assert probability(4.0, True, model) < probability(4.0, False, model)
    # the order makes the probabilities truer: a lower log loss on the same points
    loss, brier, n = fit_confidence.calibration(points, model)
    loss_alone, brier_alone, _n = fit_confidence.calibration(points, alone)
    assert n == len(points) and loss < loss_alone and brier < brier_alone


def test_each_shown_line_is_read_with_its_place_in_the_block() -> None:
    row = {
        "expected": ["m2"],
        "shown_memories": [["m1"], ["m2"]],
        "context": "<openviking-context>\nintro\n"
        "- [preference 0.81] one (viking://a)\n"
        "- [preference 0.60] two (viking://b)\n"
        "- [event 0.50] not shown, read if relevant: viking://c\n"
        "</openviking-context>",
    }
    assert fit_confidence.shown_items(row) == [(0.81, False, False), (0.6, True, True)]
