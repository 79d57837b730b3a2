"""The long-prompt supplement (tests/fixtures/recall_eval_long2) is sound: no hooks.

Each file adds long task prompts to one labelled set's memories: ones that need exactly one
memory, and unrelated ones in the same projects that need none (the case a long prompt's many
words make hardest). These checks keep it honest: names that exist, one memory per long
prompt, the lengths and language mix it claims, and a split that follows the set's own rule.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.support.scripts import labelled_sets, load_script

harness = load_script("recall_eval")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "recall_eval_long2"
SETS = labelled_sets("batch3", "issue12")


def supplement(name: str) -> dict[str, Any]:
    with open(FIXTURES / f"{name}.json", encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


def size(text: str) -> float:
    """English words, or Chinese characters over two (a word is about two characters)."""
    words = sum(1 for w in text.split() if any(c.isascii() and c.isalnum() for c in w))
    cjk = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return words + cjk / 2


@pytest.mark.parametrize("name", sorted(SETS))
def test_the_supplement_names_only_memories_of_its_set(name: str) -> None:
    data = SETS[name].load()
    prompts = supplement(name)["prompts"]
    assert harness.supplement_problems(data, prompts) == []


@pytest.mark.parametrize("name", sorted(SETS))
def test_long_prompts_need_one_memory_each_and_no_memory_twice(name: str) -> None:
    prompts = supplement(name)["prompts"]
    classes = Counter(p["class"] for p in prompts)
    assert classes == {"long": 16, "unrelated": 24}
    expected = [p["expected"] for p in prompts if p["class"] == "long"]
    assert all(len(e) == 1 for e in expected)
    assert len({e[0] for e in expected}) == len(expected)
    assert all("expected" not in p for p in prompts if p["class"] == "unrelated")


@pytest.mark.parametrize("name", sorted(SETS))
def test_prompts_are_long_and_a_third_chinese(name: str) -> None:
    prompts = supplement(name)["prompts"]
    assert all(60 <= size(p["text"]) <= 200 for p in prompts)
    for cls in ("long", "unrelated"):
        group = [p for p in prompts if p["class"] == cls]
        assert 0.25 <= sum(p["lang"] == "zh" for p in group) / len(group) <= 0.42


def test_the_split_follows_each_set_s_own_rule() -> None:
    for prompt in supplement("batch3")["prompts"]:
        parity = int(hashlib.sha1(prompt["id"].encode()).hexdigest(), 16) % 2
        assert prompt["split"] == ("dev" if parity == 0 else "heldout"), prompt["id"]
    memories = {m["id"]: m for m in SETS["issue12"].load()["memories"]["memories"]}
    for prompt in supplement("issue12")["prompts"]:
        named = prompt.get("expected") or prompt["decoy_of"]
        assert prompt["split"] == memories[named[0]]["split"], prompt["id"]
    for name in SETS:
        assert "Nobody tunes" in supplement(name)["_split"]


def test_the_check_rejects_a_broken_supplement() -> None:
    data = SETS["batch3"].load()
    first = data["prompts"]["prompts"][0]
    broken = [
        dict(first),  # an id the set already has
        {"id": "x1", "class": "long", "split": "dev", "text": "t", "expected": ["nope"]},
        {"id": "x2", "class": "odd", "split": "dev", "text": "t", "expected": []},
        {"id": "x3", "class": "unrelated", "split": "later", "text": "", "decoy_of": ["f01"]},
    ]
    found = harness.supplement_problems(data, broken)
    assert found == [
        f"{first['id']}: duplicate prompt id",
        "x1: unknown memory nope",
        "x2: no class, or names no memory",
        "x3: no split or no text",
    ]


def test_a_supplement_is_reported_apart_as_well_as_within_its_classes() -> None:
    def row(cls: str, batch: str, hit: bool, items: int) -> dict[str, Any]:
        return {
            "class": cls,
            "split": "dev",
            "batch": batch,
            "pair": "",
            "hit": hit,
            "top1": hit,
            "right_items": int(hit),
            "shown_items": items,
            "items": items,
            "tokens": 100 * items,
            "ms": 50.0,
        }

    rows = [
        row("long", "", True, 1),
        row("long", "long-2", False, 0),
        row("unrelated", "long-2", False, 1),
        row("unrelated", "", False, 0),
    ]
    table = harness.summary_table(rows)
    assert table["dev/long"]["hit"] == 0.5
    assert table["dev/long [long-2]"]["hit"] == 0.0
    assert table["dev/unrelated"]["clean"] == 0.5
    assert table["dev/unrelated [long-2]"]["clean"] == 0.0
    assert "dev/direct [long-2]" not in table
