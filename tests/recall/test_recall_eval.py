"""The labelled recall set (tests/fixtures/recall_eval) is sound: fast, no servers, no hooks.

The set is what keeps recall work honest (scripts/recall_eval.py runs it through the real hook
processes); these checks keep the set itself honest: unique ids, every relevant prompt names
memories that exist, paraphrases really share no content word with their memory, and the
dev/held-out split is by memory and disjoint.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from tests.support.scripts import load_script

data_module = load_script("recall_eval_data")
DATA: dict[str, Any] = data_module.load()
MEMORIES: list[dict[str, Any]] = DATA["memories"]["memories"]
PROMPTS: list[dict[str, Any]] = DATA["prompts"]["prompts"]


def test_the_set_has_no_problems() -> None:
    assert data_module.problems(DATA) == []


def test_the_set_has_the_size_and_mix_the_issue_asks_for() -> None:
    assert len(MEMORIES) >= 70
    assert len(PROMPTS) >= 170
    classes = Counter(p["class"] for p in PROMPTS)
    assert set(classes) == set(data_module.CLASSES)
    assert classes["unrelated"] >= 45
    chinese = sum(1 for m in MEMORIES if m["lang"] == "zh")
    assert 0.2 <= chinese / len(MEMORIES) <= 0.35
    kinds = {m["kind"] for m in MEMORIES}
    assert {"person", "environment", "gotcha", "no-trigger", "when-do", "fyi"} <= kinds


def test_the_split_is_by_memory_about_half_and_stratified() -> None:
    splits = {m["id"]: m["split"] for m in MEMORIES}
    for prompt in PROMPTS:
        named = prompt.get("expected") or prompt["decoy_of"]
        assert {splits[m] for m in named} == {prompt["split"]}, prompt["id"]
    # Sessions added later for tuning only grow dev; the balance is that of the one split.
    extra = data_module.dev_only_memories(DATA)
    assert {splits[m] for m in extra} <= {"dev"}
    split_once = [m for m in MEMORIES if m["id"] not in extra]
    held = sum(1 for m in split_once if m["split"] == "heldout")
    assert 0.4 <= held / len(split_once) <= 0.6
    for cls in data_module.CLASSES:
        per_split = Counter(
            p["split"]
            for p in PROMPTS
            if p["class"] == cls and not set(p.get("expected") or p["decoy_of"]) & extra
        )
        assert min(per_split["dev"], per_split["heldout"]) >= 0.4 * sum(per_split.values()), cls
    for lang in ("en", "zh"):
        per_split = Counter(m["split"] for m in split_once if m["lang"] == lang)
        assert abs(per_split["dev"] - per_split["heldout"]) <= 2, lang


def test_both_data_files_say_the_held_out_part_is_not_for_tuning() -> None:
    for doc in (DATA["memories"], DATA["prompts"]):
        assert "heldout" in doc["_split"] and "Nobody tunes" in doc["_split"]


def test_paraphrase_check_sees_shared_words_through_stems_compounds_and_cjk() -> None:
    shared = data_module.shared_terms
    assert shared("which exporting style?", "named exports please") == {"export"}
    assert shared("read the int96 column", "use coerce_int96_timestamp_unit") == {"int96"}
    assert shared("改一下接口", "接口返回统一格式") == {"接口"}
    assert shared("what is the port of the db?", "it is on 5433") == set()
    assert shared("which socket does it listen on", "the db is on port 5433") == set()


def corrupted(change: Any) -> list[str]:
    data = copy.deepcopy(DATA)
    change(data["memories"]["memories"], data["prompts"]["prompts"])
    problems: list[str] = data_module.problems(data)
    return problems


def first(prompts: list[dict[str, Any]], cls: str) -> dict[str, Any]:
    return next(p for p in prompts if p["class"] == cls)


def test_integrity_check_rejects_broken_sets() -> None:
    def leaky_paraphrase(memories: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> None:
        prompt = first(prompts, "paraphrase")
        memory = next(m for m in memories if m["id"] == prompt["expected"][0])
        prompt["text"] += " " + memory["evidence"][0]

    def unknown_memory(memories: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> None:
        first(prompts, "direct")["expected"] = ["m999"]

    def crossed_split(memories: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> None:
        prompt = first(prompts, "long")
        prompt["split"] = "dev" if prompt["split"] == "heldout" else "heldout"

    def duplicate_id(memories: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> None:
        prompts[1]["id"] = prompts[0]["id"]

    def short_long_prompt(memories: list[dict[str, Any]], prompts: list[dict[str, Any]]) -> None:
        first(prompts, "long")["text"] = "deploy the billing api to staging"

    def held_out_in_dev_session(
        memories: list[dict[str, Any]], prompts: list[dict[str, Any]]
    ) -> None:
        # Moved together with its prompts, so only the dev-only rule can see it.
        named = [p.get("expected", []) + p.get("decoy_of", []) for p in prompts]
        shared = {m for ids in named if len(ids) > 1 for m in ids}
        extra = data_module.dev_only_memories(DATA)
        moved = next(m for m in memories if m["id"] in extra - shared)
        moved["split"] = "heldout"
        for prompt, ids in zip(prompts, named, strict=True):
            if moved["id"] in ids:
                prompt["split"] = "heldout"

    for change in (
        leaky_paraphrase,
        unknown_memory,
        crossed_split,
        duplicate_id,
        held_out_in_dev_session,
    ):
        assert corrupted(change), change.__name__
    assert corrupted(short_long_prompt)


def test_the_harness_reads_blocks_the_way_the_renderer_writes_them() -> None:
    from ovhooks.capture.tokens import estimate_tokens
    from ovhooks.recall.rank import Candidate
    from ovhooks.recall.render import render

    harness = load_script("recall_eval")
    staging = next(m for m in MEMORIES if "5433" in m["evidence"])
    other = next(m for m in MEMORIES if m["id"] != staging["id"] and m["lang"] == "en")
    uri = "viking://user/default/memories/preferences/default/staging-db.md"
    items = [
        Candidate(uri, "preferences", 0.9, staging["statement"]),
        Candidate(uri.replace("staging-db", "other"), "preferences", 0.8, other["statement"]),
    ]
    # The smallest budget that shows the first item and degrades the second to a URI hint.
    blocks = (
        render(items, max_tokens=n, max_items=5, item_chars=400, estimate=estimate_tokens)
        for n in range(40, 400)
    )
    block = next(b for b in blocks if b is not None and len(b.shown_uris) == len(b.hint_uris) == 1)
    parsed = harness.parse_block(block.text)
    assert [(p["uri"], p["hint"]) for p in parsed] == [(uri, False), (block.hint_uris[0], True)]
    assert harness.shows(parsed[0], staging, {})
    assert not harness.shows(parsed[0], other, {})
    assert not harness.shows(parsed[1], other, {block.hint_uris[0]: other["id"]})
    assert harness.shows(parsed[0], other, {uri: other["id"]})
