"""Batches 4 and 5 of the labelled recall set (tests/fixtures/recall_eval_batch4, _batch5) and
the first-use sets (tests/fixtures/recall_eval_firstuse, _firstuse2, _firstuse3, issue 39)
are sound: no hooks.

Each uses batch 3's shapes, checks and split rule with a salt of its own
(scripts/recall_eval_batch4.py, _batch5.py, _firstuse.py); these tests keep them honest the
same way: no problems, a split nobody chose (recomputed here from the hash of each prompt id),
nothing of the earlier sets back, and the harness runs them. The mix each was written to
differs: issue 23's for the batches, issue 39's (many small separate stores) for first use.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
from collections import Counter
from typing import Any

import pytest

from tests.support.scripts import load_script

# Each fresh batch and the sets written before it.
BATCHES = {
    "batch4": ("recall_eval_data", "recall_eval_batch3"),
    "batch5": ("recall_eval_data", "recall_eval_batch3", "recall_eval_batch4"),
    "firstuse": (
        "recall_eval_data",
        "recall_eval_batch3",
        "recall_eval_batch4",
        "recall_eval_batch5",
    ),
    "firstuse2": (
        "recall_eval_data",
        "recall_eval_batch3",
        "recall_eval_batch4",
        "recall_eval_batch5",
        "recall_eval_firstuse",
    ),
    "firstuse3": (
        "recall_eval_data",
        "recall_eval_batch3",
        "recall_eval_batch4",
        "recall_eval_batch5",
        "recall_eval_firstuse",
        "recall_eval_firstuse2",
    ),
}
ISSUE_23_BATCHES = ("batch4", "batch5")
# The second and third first-use sets were written by helpers who saw no other set's memories;
# its evidence strings recur by chance where a fact is common ('5433', 'Keiko', 'Sail'), so
# only its projects and statements are held apart from the earlier sets.
EVIDENCE_MAY_RECUR = ("firstuse2", "firstuse3")


class Batch:
    def __init__(self, name: str) -> None:
        self.name = name
        self.module = load_script(f"recall_eval_{name}")
        self.data: dict[str, Any] = self.module.load()
        self.memories: list[dict[str, Any]] = self.data["memories"]["memories"]
        self.prompts: list[dict[str, Any]] = self.data["prompts"]["prompts"]
        self.by_id = {m["id"]: m for m in self.memories}


@pytest.fixture(params=sorted(BATCHES), scope="module")
def batch(request: pytest.FixtureRequest) -> Batch:
    return Batch(str(request.param))


def test_the_batch_has_no_problems(batch: Batch) -> None:
    assert batch.module.problems(batch.data) == []


def test_the_batch_has_the_size_and_mix_issue_23_asks_for(batch: Batch) -> None:
    if batch.name not in ISSUE_23_BATCHES:
        pytest.skip("written to issue 39's mix, checked below")
    assert len(batch.memories) >= 48 and len(batch.prompts) >= 150
    classes = Counter(p["class"] for p in batch.prompts)
    assert classes["direct"] >= 48 and classes["paraphrase"] >= 30
    assert classes["long"] >= 20 and classes["crosslingual"] >= 30 and classes["unrelated"] >= 30
    for items in (batch.memories, batch.prompts):
        chinese = sum(1 for i in items if i["lang"] == "zh") / len(items)
        assert 0.28 <= chinese <= 0.42
    pairs = Counter(
        batch.module.pair(p, batch.by_id) for p in batch.prompts if p["class"] == "crosslingual"
    )
    assert set(pairs) == {"zh>en", "en>zh", "zh>zh"} and min(pairs.values()) >= 5


def test_no_project_or_memory_of_the_earlier_sets_comes_back(batch: Batch) -> None:
    cwds = {s["cwd"] for s in batch.data["memories"]["sessions"]}
    keys = {frozenset(k.lower() for k in m["evidence"]) for m in batch.memories}
    said = {m["statement"] for m in batch.memories}
    for name in BATCHES[batch.name]:
        earlier = load_script(name).load()
        assert not {s["cwd"] for s in earlier["memories"]["sessions"]} & cwds, name
        # A memory is its statement and its evidence together (a word like 中文 may recur).
        old = earlier["memories"]["memories"]
        if batch.name not in EVIDENCE_MAY_RECUR:
            assert not {frozenset(k.lower() for k in m["evidence"]) for m in old} & keys, name
        assert not {m["statement"] for m in old} & said, name


def test_the_split_is_half_of_each_class_by_a_hash_of_the_prompt_id(batch: Batch) -> None:
    salt = f"ovhooks-recall-eval-{batch.name}"
    for cls in batch.module.CLASSES:
        ids = [p["id"] for p in batch.prompts if p["class"] == cls]
        ranked = sorted(ids, key=lambda i: hashlib.sha256(f"{salt}:{i}".encode()).hexdigest())
        held = {p["id"] for p in batch.prompts if p["class"] == cls and p["split"] == "heldout"}
        assert held == set(ranked[: len(ids) // 2]), cls


def test_both_files_say_the_held_out_part_is_not_for_tuning(batch: Batch) -> None:
    for doc in (batch.data["memories"], batch.data["prompts"]):
        assert "heldout" in doc["_split"] and "Nobody tunes" in doc["_split"]


def test_the_check_rejects_a_paraphrase_sharing_a_word_and_a_split_by_hand(batch: Batch) -> None:
    leaky = copy.deepcopy(batch.data)
    prompt = next(p for p in leaky["prompts"]["prompts"] if p["class"] == "paraphrase")
    prompt["text"] += " " + batch.by_id[prompt["expected"][0]]["evidence"][0]
    assert batch.module.problems(leaky)
    moved = copy.deepcopy(batch.data)
    prompt = moved["prompts"]["prompts"][0]
    prompt["split"] = "dev" if prompt["split"] == "heldout" else "heldout"
    assert batch.module.problems(moved)


def test_the_harness_runs_this_batch(batch: Batch) -> None:
    harness = load_script("recall_eval")
    assert harness.SETS[batch.name] == f"recall_eval_{batch.name}"
    chosen = importlib.import_module(harness.SETS[batch.name])
    assert chosen.problems(chosen.load()) == []


# --- the first-use set (issue 39 item 4) ---------------------------------------------------


@pytest.fixture(scope="module")
def firstuse() -> Batch:
    return Batch("firstuse")


def test_first_use_has_the_stores_and_prompts_issue_39_asks_for(firstuse: Batch) -> None:
    cwd = {s["id"]: s["cwd"] for s in firstuse.data["memories"]["sessions"]}
    sizes = Counter(cwd[m["session"]] for m in firstuse.memories)
    assert len(sizes) >= 15 and all(3 <= n <= 30 for n in sizes.values())
    relevant = [p for p in firstuse.prompts if p["class"] != "unrelated"]
    unrelated = [p for p in firstuse.prompts if p["class"] == "unrelated"]
    assert len(relevant) >= 150 and len(unrelated) >= 150
    crossing = [p for p in relevant if p["lang"] == "zh" or p["class"] == "crosslingual"]
    assert len(crossing) >= 0.2 * len(relevant)
    assert any(m["lang"] == "zh" for m in firstuse.memories)
    # The canonical case is in the set, asked the way issue 39 asks it.
    tabs = next(m for m in firstuse.memories if "indent with tabs" in m["statement"])
    asked = {p["text"] for p in relevant if tabs["id"] in p["expected"]}
    assert "How should I indent the new config loader module?" in asked


def test_first_use_rejects_a_prompt_asked_in_another_project_or_a_wrong_class(
    firstuse: Batch,
) -> None:
    moved = copy.deepcopy(firstuse.data)
    prompt = next(p for p in moved["prompts"]["prompts"] if p["class"] == "direct")
    other = next(s["cwd"] for s in moved["memories"]["sessions"] if s["cwd"] != prompt["cwd"])
    prompt["cwd"] = other
    assert any("another project" in p for p in firstuse.module.problems(moved))
    relabelled = copy.deepcopy(firstuse.data)
    prompt = next(p for p in relabelled["prompts"]["prompts"] if p["class"] == "paraphrase")
    prompt["class"] = "direct"
    assert any("shares no term" in p for p in firstuse.module.problems(relabelled))
    small = copy.deepcopy(firstuse.data)
    small["prompts"]["prompts"] = small["prompts"]["prompts"][:100]
    assert firstuse.module.problems(small)


def test_the_harness_gives_each_first_use_project_a_store_of_its_own(firstuse: Batch) -> None:
    harness = load_script("recall_eval")
    parts = harness.project_stores(firstuse.data)
    assert len(parts) == len({s["cwd"] for s in firstuse.data["memories"]["sessions"]})
    seen: list[str] = []
    for part in parts:
        mine = {m["id"] for m in part["memories"]["memories"]}
        for prompt in part["prompts"]["prompts"]:
            assert set(prompt["expected"]) <= mine and set(prompt.get("decoy_of", [])) <= mine
            seen.append(prompt["id"])
    assert sorted(seen) == sorted(p["id"] for p in firstuse.prompts)
    assert firstuse.module.SEPARATE_STORES and firstuse.module.DEFAULT_LOAD == "remember"
