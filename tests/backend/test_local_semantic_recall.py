"""The local store's fusion wiring (``backend.local.semantic_recall.merge``) on a real store,
with the embedding service's answer given: which rows are rated, and which are weighed as
written in another script than the prompt."""

from __future__ import annotations

from pathlib import Path

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.local.search import search
from ovhooks.backend.local.semantic_recall import merge
from ovhooks.recall.query import build_query
from ovhooks.semantic import fusion

ENGLISH = "The nightly reconciliation job emails Marta whenever the ledger totals disagree."
RIVAL = "Invoices are generated on the first working day of each month."


def _store(tmp_path: Path) -> tuple[LocalBackend, int]:
    store = LocalBackend(str(tmp_path / "data"))
    store.write("viking://user/default/memories/preferences/recon.md", ENGLISH + "\n")
    store.write("viking://user/default/memories/preferences/invoices.md", RIVAL + "\n")
    (rid,) = store.db().execute("SELECT id FROM memories WHERE content LIKE '%Marta%'").fetchone()
    return store, int(rid)


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
    admitted, dropped = merge(store, query, hits, found, 0.55, search, prompt)
    (mine,) = [h for h in admitted + dropped if h.rid == rid]
    assert mine.evidence is not None
    return mine.evidence


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
        admitted, dropped = merge(store, query, [], found, 0.55, search, prompt)
        assert admitted == [] and dropped == []
        found["hits"][0]["strength"] = floor + 0.1
        admitted, dropped = merge(store, query, [], found, 0.55, search, prompt)
        assert rid in [h.rid for h in admitted + dropped]
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
        admitted, dropped = merge(store, query, [], found, 0.55, search, prompt)
        (row,) = [h for h in admitted + dropped if h.kind == "archive"]
        assert row.evidence is not None and row.evidence.archive
        assert not row.evidence.admitted and row.evidence.reason == "history_needs_words"
    finally:
        store.close()
