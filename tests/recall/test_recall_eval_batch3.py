"""Batch 3 of the labelled recall set (tests/fixtures/recall_eval_batch3) is sound: no hooks.

The batch is judged by scripts/recall_eval.py --set batch3; these checks keep the batch itself
honest: unique ids, expected memories that exist, paraphrases with no shared content word,
the size and language mix issue 23 asks for, and a dev/held-out split that nobody chose by
hand (recomputed here from the hash of each prompt id, independently of the module).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
from collections import Counter
from collections.abc import Callable
from typing import Any

from tests.support.scripts import load_script

batch = load_script("recall_eval_batch3")
DATA: dict[str, Any] = batch.load()
MEMORIES: list[dict[str, Any]] = DATA["memories"]["memories"]
PROMPTS: list[dict[str, Any]] = DATA["prompts"]["prompts"]
BY_ID = {m["id"]: m for m in MEMORIES}


def test_the_batch_has_no_problems() -> None:
    assert batch.problems(DATA) == []


def test_ids_are_unique_and_every_expected_memory_exists() -> None:
    assert len({m["id"] for m in MEMORIES}) == len(MEMORIES)
    assert len({p["id"] for p in PROMPTS}) == len(PROMPTS)
    for prompt in PROMPTS:
        named = prompt.get("expected") or prompt["decoy_of"]
        assert named and set(named) <= set(BY_ID), prompt["id"]
        assert ("expected" in prompt) != (prompt["class"] == "unrelated"), prompt["id"]


def test_the_batch_has_the_size_and_mix_issue_23_asks_for() -> None:
    assert len(MEMORIES) >= 48
    assert len(PROMPTS) >= 150
    classes = Counter(p["class"] for p in PROMPTS)
    assert set(classes) == {"direct", "paraphrase", "long", "crosslingual", "unrelated"}
    assert classes["direct"] >= 48 and classes["unrelated"] >= 30 and classes["long"] >= 20
    assert {m["kind"] for m in MEMORIES} == {
        "preference",
        "convention",
        "person",
        "environment",
        "gotcha",
        "decision",
        "deadline",
    }
    for items in (MEMORIES, PROMPTS):
        chinese = sum(1 for i in items if i["lang"] == "zh") / len(items)
        assert 0.28 <= chinese <= 0.42
    # Chinese prompts in every class, not only the cross-lingual one.
    assert {p["class"] for p in PROMPTS if p["lang"] == "zh"} == set(classes)


def test_no_memory_or_person_of_the_first_set_comes_back() -> None:
    first = load_script("recall_eval_data").load()
    old_cwds = {s["cwd"] for s in first["memories"]["sessions"]}
    assert not old_cwds & {s["cwd"] for s in DATA["memories"]["sessions"]}
    old_evidence = {k.lower() for m in first["memories"]["memories"] for k in m["evidence"]}
    assert not old_evidence & {k.lower() for m in MEMORIES for k in m["evidence"]}


def test_paraphrases_share_no_content_word_with_their_memory() -> None:
    paraphrases = [p for p in PROMPTS if p["class"] == "paraphrase"]
    assert len(paraphrases) >= 30
    for prompt in paraphrases:
        for m in prompt["expected"]:
            assert batch.shared_terms(prompt["text"], BY_ID[m]["statement"]) == set(), prompt["id"]


def test_the_word_rule_sees_stems_compound_parts_and_chinese_bigrams() -> None:
    shared = batch.shared_terms
    assert shared("sorting the reads", "samtools sort dies") == {"sort"}
    assert shared("a seat-map tweak", "the seat hold tests") == {"seat"}
    assert shared("改一下开盘价", "用下一根 K 线的开盘价成交") == {"开盘", "盘价"}
    assert shared("which queue fits the step?", "go to the Slurm partition bigmem") == set()
    assert shared("历史报价文件", "行情数据在 /data/ticks 下面") == set()


def hashed_heldout(cls: str) -> set[str]:
    """The held-out prompts of a class, by the rule written out again here."""
    ids = [p["id"] for p in PROMPTS if p["class"] == cls]
    ranked = sorted(
        ids, key=lambda i: hashlib.sha256(f"ovhooks-recall-eval-batch3:{i}".encode()).hexdigest()
    )
    return set(ranked[: len(ids) // 2])


def test_the_split_is_half_of_each_class_by_a_hash_of_the_prompt_id() -> None:
    for cls in batch.CLASSES:
        held = {p["id"] for p in PROMPTS if p["class"] == cls and p["split"] == "heldout"}
        assert held == hashed_heldout(cls), cls
        dev = {p["id"] for p in PROMPTS if p["class"] == cls and p["split"] == "dev"}
        assert len(dev) - len(held) in (0, 1), cls
    for lang in ("en", "zh"):
        split = Counter(p["split"] for p in PROMPTS if p["lang"] == lang)
        assert 0.35 <= split["heldout"] / (split["dev"] + split["heldout"]) <= 0.65, lang


def test_both_files_say_the_held_out_part_is_not_for_tuning() -> None:
    for doc in (DATA["memories"], DATA["prompts"]):
        assert "heldout" in doc["_split"] and "Nobody tunes" in doc["_split"]


def test_cross_lingual_prompts_cover_each_direction() -> None:
    pairs = Counter(batch.pair(p, BY_ID) for p in PROMPTS if p["class"] == "crosslingual")
    assert set(pairs) == {"zh>en", "en>zh", "zh>zh"}
    assert min(pairs.values()) >= 5


def corrupted(change: Callable[[dict[str, Any]], None]) -> list[str]:
    data = copy.deepcopy(DATA)
    change(data)
    problems: list[str] = batch.problems(data)
    return problems


def first(data: dict[str, Any], cls: str, lang: str = "en") -> dict[str, Any]:
    return next(p for p in data["prompts"]["prompts"] if p["class"] == cls and p["lang"] == lang)


def memory(data: dict[str, Any], mid: str) -> dict[str, Any]:
    return next(m for m in data["memories"]["memories"] if m["id"] == mid)


def leaky_paraphrase(data: dict[str, Any]) -> None:
    prompt = first(data, "paraphrase", "zh")
    prompt["text"] += memory(data, prompt["expected"][0])["evidence"][0]


def unknown_memory(data: dict[str, Any]) -> None:
    first(data, "direct")["expected"] = ["f999"]


def split_by_hand(data: dict[str, Any]) -> None:
    prompt = first(data, "long")
    prompt["split"] = "dev" if prompt["split"] == "heldout" else "heldout"


def swapped_split(data: dict[str, Any]) -> None:
    # Moved in a pair, the counts stay balanced: only the hash rule sees it.
    longs = [p for p in data["prompts"]["prompts"] if p["class"] == "long"]
    held = next(p for p in longs if p["split"] == "heldout")
    dev = next(p for p in longs if p["split"] == "dev")
    held["split"], dev["split"] = "dev", "heldout"


def duplicate_id(data: dict[str, Any]) -> None:
    data["prompts"]["prompts"][1]["id"] = data["prompts"]["prompts"][0]["id"]


def short_long_prompt(data: dict[str, Any]) -> None:
    first(data, "long")["text"] = "add waitlists to the events page"


def english_for_english(data: dict[str, Any]) -> None:
    prompt = first(data, "crosslingual", "en")
    prompt["expected"] = ["f01"]


def decoy_without_shared_word(data: dict[str, Any]) -> None:
    first(data, "unrelated")["text"] = "explain quicksort"


def evidence_not_stated(data: dict[str, Any]) -> None:
    memory(data, "f10")["evidence"] = ["hg38"]


def fewer_chinese_prompts(data: dict[str, Any]) -> None:
    prompts = data["prompts"]["prompts"]
    prompts[:] = [p for p in prompts if not (p["lang"] == "zh" and p["class"] != "crosslingual")]


def memory_never_stated(data: dict[str, Any]) -> None:
    for session in data["memories"]["sessions"]:
        session["turns"] = [t for t in session["turns"] if t.get("memory") != "f20"]


def test_the_check_rejects_broken_batches() -> None:
    for change in (
        leaky_paraphrase,
        unknown_memory,
        split_by_hand,
        swapped_split,
        duplicate_id,
        short_long_prompt,
        english_for_english,
        decoy_without_shared_word,
        evidence_not_stated,
        fewer_chinese_prompts,
        memory_never_stated,
    ):
        assert corrupted(change), change.__name__


def test_the_harness_runs_this_batch() -> None:
    harness = load_script("recall_eval")
    assert harness.SETS["batch3"] == "recall_eval_batch3"
    chosen = importlib.import_module(harness.SETS["batch3"])
    assert chosen.problems(chosen.load()) == []
