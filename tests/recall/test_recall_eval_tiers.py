"""The hint-tier replay of scripts/recall_eval_tiers.py on hand-built traced rows: which
dropped candidate becomes a hint, and how hits, clean prompts and tokens are counted."""

from __future__ import annotations

from typing import Any

from tests.support.scripts import load_script

tiers = load_script("recall_eval_tiers")


def _cand(uri: str, shows: list[str], strength: float, cross: bool = False) -> dict[str, Any]:
    evidence = {"semantic": strength, "cross_script": cross, "reason": "weak"}
    return {"uri": uri, "shows": shows, "decision": "dropped", "evidence": evidence}


def _row(cls: str, expected: list[str], cands: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    row = {"class": cls, "expected": expected, "hit": False, "items": 0, "shown_items": 0}
    row.update(tokens=0, trace={"candidates": cands}, **kw)
    return row


def test_the_strongest_dropped_candidate_is_hinted_at_its_bar_and_lead() -> None:
    row = _row("paraphrase", ["m1"], [_cand("u2", ["m2"], 3.0), _cand("u1", ["m1"], 4.2)])
    assert tiers.plausible(row, 4.0, 0.0)["uri"] == "u1"
    assert tiers.plausible(row, 4.5, 0.0) is None  # under the bar
    assert tiers.plausible(row, 4.0, 1.5) is None  # leads the next by 1.2 only
    # another script's strength is weighed up before the bar
    across = _row("crosslingual", ["m1"], [_cand("u1", ["m1"], 3.0, cross=True)])
    assert tiers.plausible(across, 4.0, 0.0) is not None
    history = _row("direct", ["m1"], [_cand("viking://x/history/1", ["m1"], 9.0)])
    assert tiers.plausible(history, 4.0, 0.0) is None


def test_a_hint_counts_as_a_hit_only_when_right_and_costs_tokens_on_unrelated() -> None:
    right = _row("paraphrase", ["m1"], [_cand("u1", ["m1"], 5.0)])
    wrong = _row("paraphrase", ["m1"], [_cand("u2", ["m2"], 5.0)])
    unrelated = _row("unrelated", [], [_cand("u2", ["m2"], 5.0)])
    quiet = _row("unrelated", [], [])
    off = tiers.replay([right, wrong, unrelated, quiet], float("inf"), 0.0)
    on = tiers.replay([right, wrong, unrelated, quiet], 4.0, 0.0)
    assert off["relevant"]["hit_or_hint"] == 0.0 and on["relevant"]["hit_or_hint"] == 0.5
    assert off["unrelated"]["clean_all"] == 1.0 and on["unrelated"]["clean_all"] == 0.5
    assert on["unrelated"]["clean_text"] == 1.0  # a hint is not memory text
    assert off["unrelated"]["tokens"] == 0 and on["unrelated"]["tokens"] > 0
