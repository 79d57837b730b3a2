"""scripts/recall_eval_unify.py: the replay of OpenViking's traced candidates through today's
decision gives, class by class, what the real hooks gave on the same held-out prompts (the
figures docs/SEMANTIC.md §2.4 reports), and a reading swapped in for a variant is put back."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ovhooks.recall import rating
from ovhooks.settings.config import load_settings
from tests.support.scripts import labelled_sets, load_script

unify = load_script("recall_eval_unify")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "recall_eval"


def test_todays_decision_replayed_gives_the_real_hooks_figures() -> None:
    settings = load_settings({"OVHOOKS_CONFIG": "/nonexistent", "HOME": "/nonexistent"})
    data = labelled_sets("batch3")["batch3"].load()
    prompts = {p["id"]: p["text"] for p in data["prompts"]["prompts"]}
    traced = unify.read_run(DOCS / "traced-batch3-openviking-capture.json.gz")["rows"]
    hooks = json.loads((DOCS / "capture-heldout-batch3-openviking.json").read_text())["rows"]
    rows = [r for r in traced if r["split"] == "heldout"]
    assert len(rows) == len(hooks) > 90
    uri_of = unify.shows_by_uri(rows)
    replayed: Counter[str] = Counter()
    for row in rows:
        shown = unify.shown_by("fusion", row, prompts[row["id"]], settings)
        hit = any(set(uri_of.get(u, ())) & set(row["expected"]) for u in shown)
        replayed[row["class"]] += (not shown) if row["class"] == "unrelated" else hit
    real: Counter[str] = Counter()
    for row in hooks:
        real[row["class"]] += (
            (not row["shown_items"]) if row["class"] == "unrelated" else row["hit"]
        )
    assert replayed == real
    # the recorded rule of the time is a different decision on the same candidates
    recorded = sum(bool(unify.shown_by("recorded", r, "", settings)) for r in rows)
    assert recorded > 0


def test_a_variants_reading_is_put_back() -> None:
    before = rating.reading
    settings = load_settings({"OVHOOKS_CONFIG": "/nonexistent", "HOME": "/nonexistent"})
    row = {
        "trace": {
            "calibration": {"loc": 0.5, "scale": 0.05},
            "candidates": [
                {
                    "uri": "viking://user/default/memories/entities/m.md",
                    "score": 0.9,
                    "text": "Friday is a holiday.",
                    "evidence": {"semantic": 1.0},
                }
            ],
        }
    }
    # the server's reading alone: 8 spreads, admitted; the local one alone (1.0): not
    assert unify.shown_by("server", row, "is friday off?", settings) != []
    assert unify.shown_by("local", row, "is friday off?", settings) == []
    assert rating.reading is before
