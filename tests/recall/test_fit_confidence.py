"""scripts/fit_confidence.py on hand-built recorded rows: which score each shown memory is
read at, what the operating curve counts, and that the fit orders probabilities the way the
labels do."""

from __future__ import annotations

from typing import Any

from ovhooks.recall.confidence import Model, probability
from tests.support.scripts import load_script

fit_confidence = load_script("fit_confidence")


def _row(cls: str, expected: list[str], *shown: tuple[str, float]) -> dict[str, Any]:
    """A recorded row whose block shows each ``(memory id, score)`` in order."""
    lines = [f"- [preference {score:.2f}] text of {mid} (viking://{mid})" for mid, score in shown]
    return {
        "class": cls,
        "split": "dev",
        "expected": expected,
        "shown_memories": [[mid] for mid, _score in shown],
        "context": "\n".join(["<openviking-context>", "intro", *lines, "</openviking-context>"]),
    }


def test_the_curve_counts_hits_clean_prompts_and_precision_on_relevant_prompts() -> None:
    rows = [
        _row("direct", ["m1"], ("m1", 0.9), ("m2", 0.56)),
        _row("unrelated", [], ("m3", 0.56)),
    ]
    model = Model(-6.0, 10.0, 0.0)
    at_zero = fit_confidence.replay(rows, model, 0.0)
    assert (at_zero["direct"], at_zero["unrelated"], at_zero["precision"]) == (1.0, 0.0, 0.5)
    # at 0.5 the two weak memories go: the hit stays, the unrelated prompt is clean
    cut = fit_confidence.replay(rows, model, 0.5)
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
