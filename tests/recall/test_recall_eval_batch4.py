"""Batch 4 of the labelled recall set (tests/fixtures/recall_eval_batch4) is sound: no hooks.

The batch uses batch 3's shapes, checks and split rule with a salt of its own
(scripts/recall_eval_batch4.py); these tests keep it honest the same way: no problems, a
split nobody chose (recomputed here from the hash of each prompt id), nothing of the earlier
sets back, and the harness runs it.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
from collections import Counter
from typing import Any

from tests.support.scripts import load_script

batch = load_script("recall_eval_batch4")
DATA: dict[str, Any] = batch.load()
MEMORIES: list[dict[str, Any]] = DATA["memories"]["memories"]
PROMPTS: list[dict[str, Any]] = DATA["prompts"]["prompts"]
BY_ID = {m["id"]: m for m in MEMORIES}


def test_the_batch_has_no_problems() -> None:
    assert batch.problems(DATA) == []


def test_the_batch_has_the_size_and_mix_issue_23_asks_for() -> None:
    assert len(MEMORIES) >= 48 and len(PROMPTS) >= 150
    classes = Counter(p["class"] for p in PROMPTS)
    assert classes["direct"] >= 48 and classes["paraphrase"] >= 30
    assert classes["long"] >= 20 and classes["crosslingual"] >= 30 and classes["unrelated"] >= 30
    for items in (MEMORIES, PROMPTS):
        chinese = sum(1 for i in items if i["lang"] == "zh") / len(items)
        assert 0.28 <= chinese <= 0.42
    pairs = Counter(batch.pair(p, BY_ID) for p in PROMPTS if p["class"] == "crosslingual")
    assert set(pairs) == {"zh>en", "en>zh", "zh>zh"} and min(pairs.values()) >= 5


def test_no_project_or_memory_of_the_earlier_sets_comes_back() -> None:
    for name in ("recall_eval_data", "recall_eval_batch3"):
        earlier = load_script(name).load()
        old_cwds = {s["cwd"] for s in earlier["memories"]["sessions"]}
        assert not old_cwds & {s["cwd"] for s in DATA["memories"]["sessions"]}, name
        # A memory is its statement and its evidence together (a word like 中文 may recur).
        old = earlier["memories"]["memories"]
        old_keys = {frozenset(k.lower() for k in m["evidence"]) for m in old}
        assert not old_keys & {frozenset(k.lower() for k in m["evidence"]) for m in MEMORIES}
        old_said = {m["statement"] for m in old}
        assert not old_said & {m["statement"] for m in MEMORIES}, name


def test_the_split_is_half_of_each_class_by_a_hash_of_the_prompt_id() -> None:
    for cls in batch.CLASSES:
        ids = [p["id"] for p in PROMPTS if p["class"] == cls]
        ranked = sorted(
            ids,
            key=lambda i: hashlib.sha256(f"ovhooks-recall-eval-batch4:{i}".encode()).hexdigest(),
        )
        held = {p["id"] for p in PROMPTS if p["class"] == cls and p["split"] == "heldout"}
        assert held == set(ranked[: len(ids) // 2]), cls


def test_both_files_say_the_held_out_part_is_not_for_tuning() -> None:
    for doc in (DATA["memories"], DATA["prompts"]):
        assert "heldout" in doc["_split"] and "Nobody tunes" in doc["_split"]


def test_the_check_rejects_a_paraphrase_sharing_a_word_and_a_split_by_hand() -> None:
    leaky = copy.deepcopy(DATA)
    prompt = next(p for p in leaky["prompts"]["prompts"] if p["class"] == "paraphrase")
    prompt["text"] += " " + BY_ID[prompt["expected"][0]]["evidence"][0]
    assert batch.problems(leaky)
    moved = copy.deepcopy(DATA)
    prompt = moved["prompts"]["prompts"][0]
    prompt["split"] = "dev" if prompt["split"] == "heldout" else "heldout"
    assert batch.problems(moved)


def test_the_harness_runs_this_batch() -> None:
    harness = load_script("recall_eval")
    assert harness.SETS["batch4"] == "recall_eval_batch4"
    chosen = importlib.import_module(harness.SETS["batch4"])
    assert chosen.problems(chosen.load()) == []
