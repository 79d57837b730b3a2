"""The who-question supplements (tests/fixtures/recall_eval_who, and recall_eval_who2 written
fresh later to judge the who-rule's bar, and recall_eval_who3 to judge rank's margin for a
who-answer) are sound: no hooks.

Each file adds questions that ask *who* to one labelled set's memories: ones a stored person
memory answers (direct, paraphrase, cross-lingual), and as many that no memory answers, in
the same projects (a who-question about a stored topic that names nobody, a general one, or
one about a stored person that the memory does not answer). These checks keep it honest.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ovhooks.semantic.answer_type import asks_who
from tests.support.scripts import labelled_sets, load_script

harness = load_script("recall_eval")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FOLDERS = ("recall_eval_who", "recall_eval_who2", "recall_eval_who3")
SETS = labelled_sets("issue12", "batch3", "batch4", "batch5")


def supplement(name: str, folder: str = FOLDERS[0]) -> dict[str, Any]:
    with open(FIXTURES / folder / f"{name}.json", encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("name", sorted(SETS))
def test_the_supplement_names_only_memories_of_its_set(name: str, folder: str) -> None:
    prompts = supplement(name, folder)["prompts"]
    assert harness.supplement_problems(SETS[name].load(), prompts) == []


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("name", sorted(SETS))
def test_as_many_unanswered_as_answered_a_third_chinese_and_the_split_rule(
    name: str, folder: str
) -> None:
    doc = supplement(name, folder)
    prompts = doc["prompts"]
    classes = Counter(p["class"] for p in prompts)
    assert set(classes) <= {"direct", "paraphrase", "crosslingual", "unrelated"}
    assert 0.4 <= classes["unrelated"] / len(prompts) <= 0.6
    assert classes["paraphrase"] >= classes["direct"]
    assert 0.28 <= sum(p["lang"] == "zh" for p in prompts) / len(prompts) <= 0.50
    assert all("expected" not in p for p in prompts if p["class"] == "unrelated")
    for prompt in prompts:
        parity = int(hashlib.sha1(prompt["id"].encode()).hexdigest(), 16) % 2
        assert prompt["split"] == ("dev" if parity == 0 else "heldout"), prompt["id"]
    assert "tune" in doc["_split"].lower()


@pytest.mark.parametrize("folder", FOLDERS)
@pytest.mark.parametrize("name", sorted(SETS))
def test_every_answered_prompt_asks_who(name: str, folder: str) -> None:
    # ``asks_who`` on prompts written by someone else (two of them, a "who" after a dash and
    # "tell me who", widened its pattern); the unanswered ones may ask about a person
    # without a "who" ("what's Priya's phone number?")
    prompts = supplement(name, folder)["prompts"]
    assert [
        p["text"] for p in prompts if p["class"] != "unrelated" and not asks_who(p["text"])
    ] == []
