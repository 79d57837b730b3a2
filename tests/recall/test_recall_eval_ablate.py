"""The rule ablation of scripts/recall_eval_ablate.py on a hand-built traced row: a memory the
agreement rule admits is shown with every rule on, and not with agreement switched off."""

from __future__ import annotations

from typing import Any

from ovhooks.semantic import fusion
from ovhooks.settings.config import load_settings
from tests.support.scripts import load_script

ablate = load_script("recall_eval_ablate")
URI = "viking://user/default/memories/preferences/default/deploy.md"
RIVAL = "viking://user/default/memories/preferences/default/lunch.md"
TEXT = "Deploys go through the blue-green pipeline on Fridays."
PROMPT = "how do we ship a release?"


def _row(lexical: float, strength: float) -> dict[str, Any]:
    evidence = fusion.Evidence(URI, lexical, strength, "whole").as_dict()
    candidate = {"uri": URI, "shows": ["m1"], "evidence": {**evidence, "decision": "agreement"}}
    # as strong, sharing no word: no candidate stands out, so meaning alone admits neither
    rival = fusion.Evidence(RIVAL, 0.0, strength, "whole").as_dict()
    other = {"uri": RIVAL, "shows": ["m2"], "evidence": {**rival, "decision": "dropped"}}
    return {"class": "direct", "expected": ["m1"], "trace": {"candidates": [candidate, other]}}


def test_a_rule_switched_off_no_longer_shows_what_it_alone_admitted() -> None:
    settings = load_settings({"OVHOOKS_CONFIG": "/nonexistent", "HOME": "/nonexistent"})
    # agreement: strength at the bar, lexical at the agreement bar, nothing else would admit it
    row = _row(fusion.AGREE_LEXICAL, fusion.AGREE)
    texts = {"m1": TEXT, "m2": "Lunch is at noon."}
    assert ablate.replay(row, PROMPT, texts, "none", settings) == [URI]
    assert ablate.replay(row, PROMPT, texts, "agreement", settings) == []
    # the constants are back after each replay
    assert fusion.AGREE == 4.0 and ablate.replay(row, PROMPT, texts, "none", settings) == [URI]
    # a candidate the store did not rate (no evidence of its own) is not replayed
    unrated = {"class": "direct", "expected": ["m1"], "trace": {"candidates": [{"uri": URI}]}}
    assert ablate.replay(unrated, PROMPT, texts, "none", settings) == []
    # a stored memory may show two labelled ones: either being expected is a hit
    got = ablate.figures([row], lambda r: [URI], {URI: ["m9", "m1"]})
    assert got == {
        "direct": (1, 1),
        "relevant": (1, 1),
        "precision": (1, 1),
        "first right": (1, 1),
    }
    assert ablate.figures([row], lambda r: [URI], {URI: ["m9"]})["direct"] == (0, 1)
