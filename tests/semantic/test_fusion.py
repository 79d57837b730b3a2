"""The fusion rule: each way in, each way out, and the bounds on semantic-only admissions."""

from __future__ import annotations

import pytest

from ovhooks.semantic import fusion
from ovhooks.semantic.fusion import Evidence, fuse, judge

BAR = 0.55


def test_strong_lexical_evidence_is_injected_without_semantics() -> None:
    item = judge(Evidence("a", 0.70), BAR)
    assert (item.decision, item.reason, item.admitted) == ("lexical", "", True)
    assert item.order(BAR) == 0.70


def test_lexical_below_the_bar_without_semantics_is_dropped() -> None:
    item = judge(Evidence("a", 0.50), BAR)
    assert (item.decision, item.reason, item.admitted) == ("dropped", "lexical_below", False)


def test_words_at_the_bar_are_injected_however_low_the_model_rates_them() -> None:
    """No veto of the model over shared words (issue 39: on held-out it cost hits on every
    set and kept one unrelated prompt clean)."""
    for strength in (-2.0, 0.0, 2.7, fusion.AGREE + 0.5):
        item = judge(Evidence("a", BAR, strength), BAR)
        assert (item.decision, item.reason) == ("lexical", ""), strength


def test_strong_semantics_alone_is_injected_and_sorted_at_the_bar() -> None:
    item = judge(Evidence("a", 0.10, fusion.STRONG + 1.0, "whole"), BAR)
    assert item.decision == "semantic"
    assert item.order(BAR) == BAR


def test_moderate_agreement_of_both_is_injected_but_neither_alone() -> None:
    rival = fusion.AGREE  # another candidate as strong: no distinct best
    both = judge(Evidence("a", fusion.AGREE_LEXICAL, fusion.AGREE), BAR, rival)
    assert both.decision == "agreement"
    words_only = judge(Evidence("b", fusion.AGREE_LEXICAL, fusion.AGREE - 0.1), BAR, rival)
    meaning_only = judge(Evidence("c", fusion.AGREE_LEXICAL - 0.05, fusion.AGREE), BAR, rival)
    assert (words_only.decision, words_only.reason) == ("dropped", "weak")
    assert meaning_only.decision == "dropped"


def test_agreement_needs_to_be_near_the_best_candidate() -> None:
    near = judge(Evidence("a", 0.5, fusion.AGREE), BAR, rival=fusion.AGREE + fusion.AGREE_MARGIN)
    far = judge(Evidence("b", 0.5, fusion.AGREE), BAR, rival=fusion.AGREE + fusion.AGREE_MARGIN + 1)
    assert near.decision == "agreement"
    assert (far.decision, far.reason) == ("dropped", "weak")


def test_a_distinct_best_match_is_injected_below_the_strong_bar() -> None:
    alone = judge(Evidence("a", 0.0, fusion.DISTINCT), BAR, rival=fusion.DISTINCT - fusion.GAP)
    crowded = judge(Evidence("b", 0.0, fusion.DISTINCT), BAR, rival=fusion.DISTINCT - 0.5)
    only = judge(Evidence("c", 0.0, fusion.DISTINCT), BAR, rival=None)
    assert alone.decision == "semantic"
    assert (crowded.decision, crowded.reason) == ("dropped", "weak")
    assert only.decision == "semantic"


def test_fuse_measures_each_candidate_against_the_best_other() -> None:
    top, second = fusion.DISTINCT + 0.5, fusion.DISTINCT + 0.5 - fusion.GAP
    out = {i.key: i for i in fuse([Evidence("a", 0.0, top), Evidence("b", 0.0, second)], BAR)}
    assert out["a"].decision == "semantic"
    assert out["b"].decision == "dropped"
    tied = fuse([Evidence("a", 0.0, top), Evidence("b", 0.0, top)], BAR)
    assert all(i.decision == "dropped" for i in tied)
    lexical_only = fuse([Evidence("w", 0.50, None), Evidence("s", 0.0, 1.0)], BAR)
    assert all(not i.admitted for i in lexical_only)


def test_semantic_only_admissions_are_bounded_by_the_best_and_a_count() -> None:
    top = fusion.STRONG + 2.0 + fusion.MARGIN
    items = [
        Evidence("best", 0.0, top),
        Evidence("close", 0.0, top - 0.5),
        Evidence("third", 0.0, top - 1.0),
        Evidence("far", 0.0, top - fusion.MARGIN - 0.5),
        Evidence("words", 0.80, None),
    ]
    out = fuse(items, BAR)
    decided = {i.key: (i.decision, i.reason) for i in out}
    assert decided["best"] == ("semantic", "")
    assert decided["close"] == ("semantic", "")
    assert decided["third"] == ("dropped", "semantic_cap")
    assert decided["far"] == ("dropped", "below_best")
    assert decided["words"] == ("lexical", "")
    assert [i.key for i in out][:3] == ["words", "best", "close"]


def test_fuse_without_semantic_admissions_keeps_the_lexical_order() -> None:
    out = fuse([Evidence("b", 0.60), Evidence("a", 0.70), Evidence("c", 0.30, 0.0)], BAR)
    assert [i.key for i in out] == ["a", "b", "c"]


def test_evidence_reads_as_a_plain_document_for_logs_and_the_viewer() -> None:
    item = judge(Evidence("viking://x", 0.2, 5.5, "clause"), BAR)
    assert item.as_dict() == {
        "lexical": 0.2,
        "semantic": 5.5,
        "weighed": 5.5,
        "via": "clause",
        "cross_script": False,
        "shared": True,
        "archive": False,
        "person": False,
        "rival_only": False,
        "decision": "semantic",
        "reason": "",
    }
    # and back, undecided: what a rating store returns is what the decision reads
    again = Evidence.from_dict("viking://x", item.as_dict())
    assert again.as_dict() == {**item.as_dict(), "decision": "dropped"}
    assert "semantic" in repr(item)


def test_a_candidate_in_another_script_is_weighed_up() -> None:
    # The same strength: below the bar in the prompt's own script, above it across scripts.
    strength = fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 0.1
    crowded = strength - 0.5  # another candidate close by: no distinct best
    same = judge(Evidence("a", 0.0, strength), BAR, rival=crowded)
    other = judge(Evidence("b", 0.0, strength, cross_script=True), BAR, rival=crowded)
    assert not same.admitted and same.reason == "weak"
    assert other.admitted and other.decision == fusion.SEMANTIC
    assert other.weighed == pytest.approx(strength * fusion.CROSS_SCRIPT_SCALE)
    assert other.as_dict()["cross_script"] is True and other.as_dict()["semantic"] == strength


def test_cross_script_weighing_ranks_and_bounds_semantic_admissions() -> None:
    # Across scripts the weighed strength decides who is best and who is within the margin.
    top = Evidence("zh", 0.0, fusion.STRONG / fusion.CROSS_SCRIPT_SCALE + 1.0, cross_script=True)
    near = Evidence("en", 0.0, fusion.STRONG)
    out = {i.key: i for i in fuse([top, near], BAR)}
    assert out["zh"].admitted and out["en"].admitted
    # both sort at the bar; the stronger as weighed comes first
    assert out["zh"].order(BAR) == out["en"].order(BAR) == BAR
    assert [i.key for i in fuse([near, top], BAR)] == ["zh", "en"]
    no_strength = Evidence("x", 0.0, None, cross_script=True)
    assert no_strength.weighed is None


def test_meaning_without_a_shared_word_is_injected_when_it_is_the_strongest() -> None:
    # A paraphrase shares no word; a decoy's similarity comes from the word it shares.
    strength = fusion.UNSHARED + 0.2
    crowded = strength - 0.5  # no distinct best, under the strong bar
    assert strength < fusion.STRONG and strength - crowded < fusion.GAP
    unshared = judge(Evidence("a", 0.29, strength, shared=False), BAR, rival=crowded)
    assert (unshared.decision, unshared.reason) == ("semantic", "")
    assert unshared.as_dict()["shared"] is False
    decoy = judge(Evidence("b", 0.29, strength), BAR, rival=crowded)
    assert (decoy.decision, decoy.reason) == ("dropped", "weak")


def test_meaning_without_a_shared_word_needs_the_bar_the_lead_and_the_same_script() -> None:
    low = fusion.UNSHARED - 0.1
    under = judge(Evidence("a", 0.29, low, shared=False), BAR, rival=low - 0.5)
    assert (under.decision, under.reason) == ("dropped", "weak")
    at = fusion.UNSHARED + 0.2
    second = judge(Evidence("b", 0.29, at, shared=False), BAR, rival=at + 0.1)
    assert (second.decision, second.reason) == ("dropped", "weak")
    alone = judge(Evidence("c", 0.29, at, shared=False), BAR, rival=None)
    assert alone.decision == "semantic"
    # Another script: weighed up already, and scaled rules of its own; not this one.
    raw = fusion.UNSHARED / fusion.CROSS_SCRIPT_SCALE + 0.05
    across = Evidence("d", 0.29, raw, shared=False, cross_script=True)
    judge(across, BAR, rival=(across.weighed or 0.0) - 0.5)
    assert (across.decision, across.reason) == ("dropped", "weak")


def test_unshared_admissions_are_bounded_like_every_semantic_one() -> None:
    at = fusion.UNSHARED + 0.5
    items = [Evidence(k, 0.29, at, shared=False) for k in ("a", "b", "c")]
    out = fuse(items, BAR)
    admitted = [i.key for i in out if i.admitted]
    assert admitted == ["a", "b"]
    assert [i.reason for i in out if not i.admitted] == ["semantic_cap"]


def test_a_history_row_passes_on_its_words_never_on_meaning_alone() -> None:
    # What the user said in a past session: one that merely resembles the prompt is mostly
    # an earlier request like this one.
    strong = judge(Evidence("a", 0.10, fusion.STRONG + 1.0, archive=True), BAR)
    assert (strong.decision, strong.reason) == ("dropped", "history_needs_words")
    at = fusion.UNSHARED + 0.2
    unshared = judge(Evidence("b", 0.29, at, shared=False, archive=True), BAR, rival=at - 0.5)
    assert (unshared.decision, unshared.reason) == ("dropped", "history_needs_words")
    words = judge(Evidence("c", 0.60, fusion.STRONG, archive=True), BAR)
    assert words.decision == "lexical"
    agreeing = judge(
        Evidence("d", fusion.AGREE_LEXICAL, fusion.STRONG + 1.0, archive=True), BAR, rival=None
    )
    assert agreeing.decision == "agreement"
    weak = judge(Evidence("e", 0.29, fusion.AGREE - 1.0, archive=True), BAR, rival=None)
    assert (weak.decision, weak.reason) == ("dropped", "weak")
