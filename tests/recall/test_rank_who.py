"""The seam between the local store's fusion and ``recall.rank`` for a who-question.

``semantic.fusion.answer_who`` admits the person memory that stands out, from the agreement's
strength (``AGREE``, 4.0); like every admission by meaning it sorts at the bar. The store's
answer is given here (the embedding service is the boundary, as in
tests/backend/test_local_semantic_recall.py); the store, its lexical search and fusion, the
context search and rank are the real ones, in the order ``recall`` runs them.

The rule's bar was 2.5 while every admission under 4 sorted under the recall bar and was
dropped unseen. Showing those was measured twice, the second time on a fresh set written for
it (docs/RECALL_EVAL.md, "The who-rule's bar"), and not kept: unanswered who-questions lost
clean prompts on held-out. So the bar is now where the rule was in effect, and nothing the
fusion admits is dropped unseen. One limit is left (the last test, xfail): rank's margin does
not know why a who-answer was admitted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.local import semantic_recall as sr
from ovhooks.backend.local.store import SemanticLink
from ovhooks.recall.decision import judge_rated
from ovhooks.recall.query import build_query, profile_query
from ovhooks.recall.rank import from_context_entries, rank
from ovhooks.semantic import fusion

BAR = 0.55
M = "viking://user/default/memories/entities"
OWNER = "Dana Whitfield owns the invoicing exporter and signs off on its releases."
OTHER = "Sam Okafor runs the weekly on-call handover for the payments team."
FACT = "The invoicing exporter writes CSV files to the finance share every night."
WHO = "who should approve a new release of the billing export job?"


def _store(tmp_path: Path) -> tuple[LocalBackend, dict[str, int]]:
    store = LocalBackend(str(tmp_path / "data"))
    ids: dict[str, int] = {}
    for name, text in (("owner", OWNER), ("other", OTHER), ("fact", FACT)):
        store.write(f"{M}/{name}.md", text + "\n")
        (rid,) = (
            store.db()
            .execute("SELECT id FROM memories WHERE uri = ?", (f"{M}/{name}.md",))
            .fetchone()
        )
        ids[name] = int(rid)
    store.semantic = SemanticLink(str(tmp_path / "state"), 1.0, 60.0)
    return store, ids


def _answering(monkeypatch: pytest.MonkeyPatch, strengths: dict[int, float]) -> dict[str, Any]:
    """The service's answer: these rows at these strengths (nothing is sent anywhere)."""
    found = {
        "hits": [
            {"kind": "m", "id": i, "strength": s, "via": "whole"} for i, s in strengths.items()
        ]
    }

    def ask(_store: Any, _link: Any, _prompt: str) -> object:
        return object()

    def answer(_asked: Any, _link: Any) -> dict[str, Any]:
        return found

    monkeypatch.setattr(sr, "ask", ask)
    monkeypatch.setattr(sr, "answer", answer)
    return found


def _recalled(store: LocalBackend, prompt: str) -> tuple[list[str], list[dict[str, Any]]]:
    """What recall keeps (``retrieve``, then ``decision.judge_rated`` and ``rank`` on a store
    that rates its candidates), and the store's entries."""
    query = build_query(prompt, [])
    result = store.search_context(query, score_threshold=BAR, prompt=prompt)
    entries = result["entries"]
    found, _ = from_context_entries(entries, threshold=0.0, resources=False)
    judged, _dropped = judge_rated(found, prompt, BAR)
    kept = rank(judged, profile_query(prompt))
    return [c.uri for c in kept], entries


def test_the_who_rule_admits_from_the_strength_that_reaches_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, ids = _store(tmp_path)
    try:
        # At 3 the fusion does not admit the owner at all (under the agreement's strength).
        found = _answering(monkeypatch, {ids["owner"]: 3.0, ids["other"]: 1.0, ids["fact"]: 1.5})
        query = build_query(WHO, [])
        rated = sr.rate(store, query, [], found, _search(), WHO)
        weighed = [h.evidence for h in rated if h.evidence is not None]
        fusion.fuse([e for e in weighed if not e.rival_only], BAR)
        assert fusion.answer_who(weighed) is None
        assert _recalled(store, WHO)[0] == []
        # From AGREE the owner reaches the block, at or above the bar (here the owner's
        # words and meaning agree, so the fusion admits it before the who-rule is asked;
        # tests/recall/test_decision.py has the who-rule's own admission at AGREE).
        _answering(monkeypatch, {ids["owner"]: fusion.AGREE + 0.2, ids["other"]: 1.0})
        assert _recalled(store, WHO)[0] == [f"{M}/owner.md"]
    finally:
        store.close()


def test_without_the_who_rule_a_weak_person_memory_stays_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, ids = _store(tmp_path)
    try:
        # Too weak for the rule (under AGREE), or a rival person memory too close.
        _answering(monkeypatch, {ids["owner"]: fusion.AGREE - 0.2, ids["other"]: 1.0})
        assert _recalled(store, WHO)[0] == []
        _answering(monkeypatch, {ids["owner"]: 3.0, ids["other"]: 3.0 - fusion.WHO_GAP / 2})
        assert _recalled(store, WHO)[0] == []
        # Not a who-question: the same strength admits nothing.
        _answering(monkeypatch, {ids["owner"]: 3.0, ids["other"]: 1.0})
        assert (
            _recalled(store, "what should a new release of the billing export job include?")[0]
            == []
        )
    finally:
        store.close()


def test_an_entry_under_the_bar_without_an_admission_is_still_dropped() -> None:
    # The bar holds for everything the store did not admit on its own evidence.
    plain = {"uri": f"{M}/a.md", "category": "entities", "score": 0.52, "text": "Dana owns it."}
    dropped = {**plain, "evidence": {"decision": fusion.DROPPED, "reason": "weak"}}
    for entry in (plain, dropped):
        assert from_context_entries([entry], threshold=BAR, resources=False)[0] == []


@pytest.mark.xfail(
    strict=True,
    reason="rank's margin does not know the who-rule: sparing its answers measured, not shipped "
    "(docs/RECALL_EVAL.md, 'The who-rule's bar')",
)
def test_rank_keeps_an_answer_of_the_asked_type_far_below_the_best() -> None:
    def entry(name: str, score: float, reason: str) -> dict[str, object]:
        text = f"{name.title()} owns the exporter."
        evidence = {"decision": "lexical" if name == "fact" else "semantic", "reason": reason}
        uri = f"{M}/{name}.md"
        return {
            "uri": uri,
            "category": "entities",
            "score": score,
            "text": text,
            "evidence": evidence,
        }

    entries = [entry("fact", 0.95, ""), entry("dana", 0.55, "answers_who")]
    found, _ = from_context_entries(entries, threshold=BAR, resources=False)
    kept = rank(found, profile_query("who owns the nightly exporter?"))
    assert [c.uri.rsplit("/", 1)[1] for c in kept] == ["fact.md", "dana.md"]


def _search() -> Any:
    from ovhooks.backend.local.search import search

    return search
