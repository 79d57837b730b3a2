"""The learned-decision measurement (scripts/recall_eval_learned.py) on hand-built rows: the
fit ranks a helpful candidate above an unhelpful one it was shown, and the features see what
the rules see (the cross-script scale, the lead over the best other candidate)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ovhooks.semantic import fusion
from tests.support.scripts import load_script

learned = load_script("recall_eval_learned")


def _candidate(uri: str, lexical: float, strength: float | None, **flags: Any) -> dict[str, Any]:
    ev = fusion.Evidence(uri, lexical, strength, "whole", **flags).as_dict()
    return {"uri": uri, "shows": [uri], "evidence": ev}


def _row(*candidates: dict[str, Any], expected: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "class": "direct" if expected else "unrelated",
        "expected": list(expected),
        "trace": {"candidates": list(candidates)},
    }


def test_features_read_strength_as_the_rules_do() -> None:
    row = _row(
        _candidate("a", 0.60, 5.0),
        _candidate("b", 0.20, 2.0, cross_script=True),
        _candidate("c", 0.10, None),
        {"uri": "rival", "evidence": {**_candidate("r", 0.0, 9.0)["evidence"], "rival_only": True}},
    )
    a, b, c = learned.features(row, words=8)  # the rival-only row is not a candidate
    assert len(a) == len(b) == len(c)
    assert a[2] == 1.0 and b[2] == 0.0  # meets the lexical bar
    assert b[4] == 2.0 * fusion.CROSS_SCRIPT_SCALE  # scaled across scripts
    assert a[6] == 5.0 - 2.0 * fusion.CROSS_SCRIPT_SCALE and a[7] == 1.0  # lead, and the best
    assert c[3] == 0.0 and c[4] == 0.0  # no strength


def test_the_fit_ranks_what_helped_above_what_did_not() -> None:
    rows = []
    for i in range(40):
        good = _candidate(f"g{i}", 0.5 + (i % 5) / 50, 6.0 + (i % 3))
        bad = _candidate(f"b{i}", 0.3 + (i % 4) / 50, 1.0 + (i % 3))
        rows.append((_row(good, bad, expected=(f"g{i}",)), (1.0, 0.0)))
    x = np.array([f for row, _ in rows for f in learned.features(row, words=10)])
    y = np.array([label for _, labels in rows for label in labels])
    w, mu, sd = learned.fit(x, y)
    z = np.hstack([x[:, :1], (x[:, 1:] - mu) / sd])
    p = 1 / (1 + np.exp(-z @ w))
    assert (p[y == 1.0].min()) > (p[y == 0.0].max())


def test_figures_count_hits_clean_prompts_and_precision() -> None:
    hit = _row(_candidate("m1", 0.6, 5.0), expected=("m1",))
    noisy = _row(_candidate("m2", 0.6, 5.0))
    got = learned.figures(
        [(hit, hit["trace"]["candidates"]), (noisy, noisy["trace"]["candidates"])]
    )
    assert got["direct"] == [1, 1] and got["relevant"] == [1, 1]
    assert got["clean"] == [0, 1] and got["precision"] == [1, 2]
