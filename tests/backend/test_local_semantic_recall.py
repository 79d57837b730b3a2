"""The local store's rating (``backend.local.semantic_recall.rate``) on a real store, with the
embedding service's answer given: which rows are rated, and which are weighed as written in
another script than the prompt; then recall's decision on them (``recall.decision``), as the
hook runs the two."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.local.hits import Hit
from ovhooks.backend.local.search import _searcher, search
from ovhooks.backend.local.semantic_recall import rate
from ovhooks.recall.decision import judge_rated
from ovhooks.recall.query import build_query
from ovhooks.recall.rank import Candidate
from ovhooks.semantic import fusion

ENGLISH = "The nightly reconciliation job emails Marta whenever the ledger totals disagree."
RIVAL = "Invoices are generated on the first working day of each month."


def _store(tmp_path: Path) -> tuple[LocalBackend, int]:
    store = LocalBackend(str(tmp_path / "data"))
    store.write("viking://user/default/memories/preferences/recon.md", ENGLISH + "\n")
    store.write("viking://user/default/memories/preferences/invoices.md", RIVAL + "\n")
    (rid,) = store.db().execute("SELECT id FROM memories WHERE content LIKE '%Marta%'").fetchone()
    return store, int(rid)


def _decided(
    store: LocalBackend, query: str, hits: list[Hit], found: dict[str, Any], prompt: str
) -> dict[int, fusion.Evidence]:
    """Every rated row (by id) with the decision's verdict on it."""
    rated = rate(store, query, hits, found, search, prompt)
    candidates = []
    for hit in rated:
        assert hit.evidence is not None and not hit.evidence.admitted  # the store decides nothing
        cand = Candidate(hit.uri, hit.category, hit.score, hit.text)
        cand.evidence = hit.evidence.as_dict()
        candidates.append(cand)
    judge_rated(candidates, prompt, 0.55)
    out = {}
    for hit, cand in zip(rated, candidates, strict=True):
        verdict = cand.evidence or {}
        evidence = fusion.Evidence.from_dict(hit.uri, verdict)
        evidence.decision, evidence.reason = str(verdict["decision"]), str(verdict["reason"])
        out[hit.rid] = evidence
    return out


def _merge(store: LocalBackend, rid: int, prompt: str, strength: float) -> fusion.Evidence:
    # A rival close behind (in the prompt's script, for an English prompt): no distinct best.
    (other,) = store.db().execute("SELECT id FROM memories WHERE id != ?", (rid,)).fetchone()
    found = {
        "hits": [
            {"kind": "m", "id": rid, "strength": strength, "via": "whole"},
            {"kind": "m", "id": int(other), "strength": strength - 0.5, "via": "whole"},
        ]
    }
    query = build_query(prompt, [])
    hits = search(store, query, store.peer, archives=True)
    return _decided(store, query, hits, found, prompt)[rid]


def test_a_row_in_another_script_is_rated_and_weighed_up(tmp_path: Path) -> None:
    store, rid = _store(tmp_path)
    try:
        # Between the bar over the weighing and the bar itself: only across scripts it passes.
        strength = (fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + fusion.STRONG) / 2
        across = _merge(store, rid, "每晚的对账任务出问题时谁会收到邮件？", strength)
        assert across.cross_script and across.admitted and across.decision == fusion.SEMANTIC
        same = _merge(store, rid, "who hears about it when the nightly batch goes wrong?", strength)
        assert not same.cross_script
        assert not same.admitted and same.reason == "weak"
    finally:
        store.close()


def test_a_row_only_the_service_found_is_rated_from_the_floor_up(tmp_path: Path) -> None:
    store, rid = _store(tmp_path)
    try:
        floor = min(fusion.DISTINCT, fusion.AGREE) / fusion.CROSS_SCRIPT_SCALE
        found: dict[str, list[dict[str, object]]] = {
            "hits": [{"kind": "m", "id": rid, "strength": floor - 0.1, "via": "whole"}]
        }
        prompt = "每晚的对账任务出问题时谁会收到邮件？"
        query = build_query(prompt, [])
        # FTS5's hits given as none: rows only the service found are rated from the floor up.
        assert _decided(store, query, [], found, prompt) == {}
        found["hits"][0]["strength"] = floor + 0.1
        assert rid in _decided(store, query, [], found, prompt)
    finally:
        store.close()


def test_a_row_sharing_no_word_is_weighed_by_meaning_alone(tmp_path: Path) -> None:
    store, rid = _store(tmp_path)
    try:
        # Over the bar for meaning alone, under every other semantic bar (a rival 0.5 behind).
        strength = fusion.UNSHARED + 0.2
        assert strength < fusion.STRONG and fusion.GAP > 0.5
        paraphrase = _merge(store, rid, "who gets told when the books do not balance?", strength)
        assert paraphrase.shared is False
        assert paraphrase.admitted and paraphrase.decision == fusion.SEMANTIC
        # A decoy shares a word ("nightly"): its similarity may come from that word alone.
        decoy = _merge(store, rid, "what time does the nightly bus leave?", strength)
        assert decoy.shared is True
        assert not decoy.admitted and decoy.reason == "weak"
    finally:
        store.close()


def test_search_says_whether_a_row_shares_any_term(tmp_path: Path) -> None:
    store, rid = _store(tmp_path)
    try:
        both = build_query("who gets told about the ledger?", [])
        (hit,) = search(store, both, store.peer, archives=False, only={"memory": [rid]})
        assert hit.shared is True
        neither = build_query("who gets told when the books do not balance?", [])
        (hit,) = search(store, neither, store.peer, archives=False, only={"memory": [rid]})
        assert hit.shared is False and hit.score < 0.55
    finally:
        store.close()


def test_a_history_row_is_weighed_as_history(tmp_path: Path) -> None:
    store, _rid = _store(tmp_path)
    try:
        ask = {"role": "user", "content": "the month-end ledger export is broken again"}
        store.append_messages("s-hist", [ask])
        store.commit("s-hist")
        (hid,) = store.db().execute("SELECT id FROM history").fetchone()
        strong = {"kind": "h", "id": int(hid), "strength": fusion.STRONG + 1, "via": "whole"}
        found = {"hits": [strong]}
        prompt = "did someone ask about the books before?"
        query = build_query(prompt, [])
        (row,) = _decided(store, query, [], found, prompt).values()
        assert row.archive
        assert not row.admitted and row.reason == "history_needs_words"
    finally:
        store.close()


def test_rows_only_the_service_found_are_weighed_in_the_prompts_one_vocabulary(
    tmp_path: Path,
) -> None:
    store, rid = _store(tmp_path)
    try:
        # "ledger" said over and over in past sessions: a common word here, promoted or not.
        for n in range(6):
            said = {"role": "user", "content": f"the ledger export number {n} failed again"}
            store.append_messages(f"s-{n}", [said])
            store.commit(f"s-{n}")
        query = build_query("who hears about ledger totals?", [])
        mine = ("memory", rid)
        (fts,) = [
            h for h in search(store, query, store.peer, archives=True) if (h.kind, h.rid) == mine
        ]
        # The fused path's search: the weights the first call made, for every later call.
        fused = _searcher()
        assert [(h.kind, h.rid) for h in fused(store, query, store.peer, archives=True)].count(
            mine
        ) == 1
        (only,) = fused(store, query, store.peer, archives=False, only={"memory": [rid]})
        assert only.score == fts.score
        # Weighed over the memories alone, "ledger" would count as rarer than it is here.
        (alone,) = search(store, query, store.peer, archives=False, only={"memory": [rid]})
        assert alone.score > fts.score
    finally:
        store.close()
