"""The cross-script traps (tests/fixtures/recall_eval_crossscript) are sound: no hooks.

Each file holds prompts no memory of its set answers, each written against a memory in the
other language (``decoy_of``): the prompts a scale for cross-script strength can wrongly
admit. Half are English, half Chinese, split by the sets' hash rule.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ovhooks.lexical.text import script_of
from tests.support.scripts import labelled_sets, load_script

harness = load_script("recall_eval")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "recall_eval_crossscript"
SETS = labelled_sets("issue12", "batch3", "batch4", "batch5")


def traps(name: str) -> dict[str, Any]:
    with open(FIXTURES / f"{name}.json", encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_trap_is_unrelated_and_sits_near_a_memory_in_the_other_language(
    name: str,
) -> None:
    data = SETS[name].load()
    prompts = traps(name)["prompts"]
    assert harness.supplement_problems(data, prompts) == []
    memories = {m["id"]: m["statement"] for m in data["memories"]["memories"]}
    assert {p["class"] for p in prompts} == {"unrelated"}
    for prompt in prompts:
        assert "expected" not in prompt
        # (a Chinese question about an English-named API may read as English to the store:
        # the label is the writer's language, the decoy is in the other one)
        (decoy,) = prompt["decoy_of"]
        assert script_of(memories[decoy]) != prompt["lang"], prompt["id"]


@pytest.mark.parametrize("name", sorted(SETS))
def test_half_each_language_and_the_split_rule(name: str) -> None:
    doc = traps(name)
    prompts = doc["prompts"]
    assert Counter(p["lang"] for p in prompts) == {"en": 15, "zh": 15}
    for prompt in prompts:
        parity = int(hashlib.sha1(prompt["id"].encode()).hexdigest(), 16) % 2
        assert prompt["split"] == ("dev" if parity == 0 else "heldout"), prompt["id"]
    assert "tune only on dev" in doc["_split"].lower()
