"""The local store's fusion evidence reaches the recall trace ("why this memory")."""

from __future__ import annotations

from ovhooks.recall.rank import from_context_entries
from ovhooks.recall.trace import INJECTED, Trace, explain

URI = "viking://user/default/memories/preferences/indent.md"
ENTRY: dict[str, object] = {
    "uri": URI,
    "category": "preferences",
    "score": 0.62,
    "text": "In this repository we always indent with tabs.",
}


def test_a_candidate_keeps_the_stores_evidence_and_the_trace_says_it() -> None:
    evidence = {"lexical": 0.12, "semantic": 6.4, "via": "whole", "decision": "semantic"}
    found, _ = from_context_entries(
        [{**ENTRY, "evidence": evidence}], threshold=0.55, resources=False
    )
    assert found[0].evidence == evidence
    trace = Trace()
    trace.candidates = trace.kept = found
    trace.shown = (URI,)
    (row,) = explain(trace)
    assert row.decision == INJECTED
    assert row.reason.endswith("(semantic: lexical 0.12, meaning 6.4)")
    # Admitted with no word in common: the viewer says it was meaning alone.
    found[0].evidence = {**evidence, "semantic": 4.7, "shared": False}
    assert explain(trace)[0].reason.endswith(
        "(semantic: lexical 0.12, meaning 4.7; no word in common, by meaning alone)"
    )
    # The person a who-question asks for: the viewer says why it stood out.
    found[0].evidence = {**evidence, "semantic": 2.9, "reason": "answers_who"}
    assert explain(trace)[0].reason.endswith(
        "(semantic: lexical 0.12, meaning 2.9; the prompt asks who, and this person stands out"
        " from the others)"
    )


def test_without_evidence_nothing_is_added() -> None:
    found, _ = from_context_entries(
        [{**ENTRY, "evidence": "not a document"}], threshold=0.55, resources=False
    )
    assert found[0].evidence is None
    trace = Trace()
    trace.candidates = trace.kept = found
    trace.shown = (URI,)
    assert explain(trace)[0].reason == "enough evidence; in the block"
    lexical_only: dict[str, object] = {"lexical": None, "semantic": None, "decision": "lexical"}
    found[0].evidence = lexical_only
    assert explain(trace)[0].reason.endswith("(lexical: lexical -)")


def test_what_the_stores_fusion_dropped_shows_with_its_evidence_and_reason() -> None:
    found, _ = from_context_entries([ENTRY], threshold=0.55, resources=False)
    trace = Trace()
    trace.candidates = trace.kept = found
    trace.shown = (URI,)
    other = "viking://user/default/memories/events/port.md"
    trace.store_dropped = [
        {
            "uri": other,
            "lexical": 0.2,
            "semantic": 2.1,
            "decision": "dropped",
            "reason": "meaning 2.1 under the agreement bar",
            "text": "The staging port moved to 6543.",
        },
        {"uri": other, "lexical": 0.1},  # listed once
        {"uri": URI, "lexical": 0.9},  # already a candidate
        {"uri": 7},  # not a URI
        {"uri": "viking://user/default/memories/events/x.md", "lexical": None},
        {"uri": "viking://user/default/memories/events/veto.md", "reason": "semantic_veto"},
    ]
    rows = explain(trace)
    assert [r.candidate.uri for r in rows] == [
        URI,
        other,
        "viking://user/default/memories/events/veto.md",
        "viking://user/default/memories/events/x.md",
    ]
    dropped = rows[1]
    assert dropped.decision == "dropped" and dropped.reason == "meaning 2.1 under the agreement bar"
    assert dropped.candidate.evidence is not None and dropped.candidate.evidence["semantic"] == 2.1
    # its text is the row's, not part of its evidence
    assert dropped.candidate.text == "The staging port moved to 6543."
    assert "text" not in dropped.candidate.evidence and rows[3].candidate.text == ""
    # The fusion's own reasons read as words.
    assert rows[2].reason.startswith("it shares words with the prompt, but the model")
    assert rows[3].reason == "the fusion found too little evidence"
    assert rows[3].candidate.score == 0.0
