"""The in-context measure of scripts/recall_eval.py (``--in-context``): the real session-start
hook on a real small store, read the way the harness reads it. No embedding service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.scripts import load_script

harness = load_script("recall_eval")
context = load_script("recall_eval_context")
firstuse = load_script("recall_eval_firstuse")


def _one_store(tmp_path: Path, budget: int | None) -> tuple[Any, dict[str, Any], dict[str, str]]:
    """The first-use set's smallest store, remembered in its project by the real CLI."""
    data = firstuse.load()
    part = min(harness.project_stores(data), key=lambda p: len(p["memories"]["memories"]))
    settings = {"OVHOOKS_BACKEND": "local", "OVHOOKS_SEMANTIC": "off"}
    if budget is not None:
        settings["OVHOOKS_SESSION_CONTEXT_TOKENS"] = str(budget)
    runner = harness.Runner(harness.isolated_env(str(tmp_path), settings))
    uris = harness.load_by_remember(runner, str(tmp_path), part, in_project=True)
    return runner, part, uris


def test_every_memory_of_a_small_store_is_in_the_session_start_block(tmp_path: Path) -> None:
    runner, part, uris = _one_store(tmp_path, None)
    starts = harness.session_starts(runner, str(tmp_path), part, uris)
    ((name, start),) = starts.items()
    memories = {m["id"]: m for m in part["memories"]["memories"]}
    assert start["listed"] == start["memories"] == len(memories) >= 3
    assert not start["cut"] and start["tokens"] > 0
    for memory in memories.values():
        assert context.lines_showing(start["block"], memory), memory["statement"]
    # A relevant prompt the injection missed is in context through the block; an unrelated
    # one is not marked at all.
    expected = next(iter(memories))
    rows: list[dict[str, Any]] = [
        {"project": name, "expected": [expected], "hit": False},
        {"project": name, "expected": [], "hit": False},
        {"project": "elsewhere", "expected": [expected], "hit": True},
    ]
    context.mark_rows(rows, {name: start["block"]}, memories)
    assert (rows[0]["in_start"], rows[0]["in_context"]) == (True, True)
    assert "in_context" not in rows[1]
    assert (rows[2]["in_start"], rows[2]["in_context"]) == (False, True)
    assert context.rates(rows) == {"in_start": 0.5, "in_context": 1.0}


def test_a_block_cut_by_the_budget_is_reported_as_cut(tmp_path: Path) -> None:
    runner, part, uris = _one_store(tmp_path, 40)
    ((_name, start),) = harness.session_starts(runner, str(tmp_path), part, uris).items()
    assert start["cut"] and start["listed"] < start["memories"]
    summary = context.store_summary({"a": start, "b": {**start, "cut": False, "tokens": 1}})
    assert summary["cut"] == ["a"] and summary["tokens_max"] == start["tokens"]


def test_evidence_counts_only_when_one_line_carries_all_of_it() -> None:
    memory = {"evidence": ["5433", "staging"]}
    assert context.lines_showing("- staging db is on 5433", memory)
    assert not context.lines_showing("- staging db\n- port 5433", memory)
    assert not context.lines_showing("anything", {"evidence": []})
