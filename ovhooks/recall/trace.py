"""What one recall did, step by step, and why each candidate was kept or dropped (pure).

``recall_for_prompt`` fills a ``Trace`` when given one; ``explain`` turns it into one row per
candidate with the decision and its reason. The viewer's "why this memory" page shows these
rows, so what it says is what the hook's own code decided, not a re-implementation.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.recall.rank import Candidate

INJECTED = "injected"
HINTED = "hinted"
DROPPED = "dropped"


class Trace:
    """Inputs and outputs of each step of one recall (empty where the run stopped earlier)."""

    __slots__ = (
        "below_confidence",
        "block",
        "candidates",
        "error",
        "hints",
        "kept",
        "min_confidence",
        "query",
        "seen",
        "shown",
        "store_dropped",
        "tokens",
    )

    def __init__(self) -> None:
        self.query = ""
        self.seen: frozenset[str] = frozenset()
        self.candidates: list[Candidate] = []
        self.kept: list[Candidate] = []
        # kept by the decision, dropped by the user's minimum confidence: (uri, confidence)
        self.below_confidence: dict[str, float] = {}
        self.min_confidence = 0.0
        self.shown: tuple[str, ...] = ()
        self.hints: tuple[str, ...] = ()
        self.block = ""
        self.tokens = 0
        self.error = ""  # the store's failure, when retrieval failed
        # A rating store's candidates the fusion dropped (``decision.judge_rated``), with their
        # text and evidence
        self.store_dropped: list[dict[str, object]] = []


class Row:
    """One candidate as the viewer shows it."""

    __slots__ = ("candidate", "decision", "position", "reason")

    def __init__(self, candidate: Candidate, decision: str, reason: str, position: int) -> None:
        self.candidate = candidate
        self.decision = decision
        self.reason = reason
        self.position = position  # 1-based place in the block, 0 when not in it


def explain(trace: Trace) -> list[Row]:
    """One row per candidate, injected ones first in block order, then the rest by score."""
    kept = {c.uri for c in trace.kept}
    order = {uri: i + 1 for i, uri in enumerate(trace.shown + trace.hints)}
    rows: list[Row] = []
    for cand in trace.candidates:
        if cand.uri in trace.shown:
            reason = "enough evidence; in the block" + _fused(cand)
            rows.append(Row(cand, INJECTED, reason, order[cand.uri]))
        elif cand.uri in trace.hints:
            reason = "enough evidence; over the item or token budget, so only its URI"
            rows.append(Row(cand, HINTED, reason, order[cand.uri]))
        elif cand.uri in trace.below_confidence:
            told = f"{trace.below_confidence[cand.uri]:.2f} < {trace.min_confidence:.2f}"
            reason = f"enough evidence, but under your minimum confidence ({told})"
            rows.append(Row(cand, DROPPED, reason, 0))
        elif cand.uri in trace.seen:
            rows.append(Row(cand, DROPPED, "already injected in this session", 0))
        elif cand.uri in kept:
            rows.append(Row(cand, DROPPED, "kept, but the block had no room for it", 0))
        else:
            rows.append(Row(cand, DROPPED, _weak_reason(cand, trace), 0))
    rows.extend(_store_dropped(trace, {c.uri for c in trace.candidates}))
    rows.sort(key=lambda r: (r.position == 0, r.position, -r.candidate.score, r.candidate.uri))
    return rows


def _store_dropped(trace: Trace, listed: set[str]) -> list[Row]:
    """Rows for the candidates the fusion dropped (``recall.decision``)."""
    from ovhooks.recall.rank import Candidate, category_of

    rows = []
    for item in trace.store_dropped:
        uri = item.get("uri")
        if not isinstance(uri, str) or uri in listed:
            continue
        lexical = item.get("lexical")
        score = float(lexical) if isinstance(lexical, int | float) else 0.0
        text = item.get("text")
        cand = Candidate(uri, category_of(uri), score, text if isinstance(text, str) else "")
        cand.evidence = {key: value for key, value in item.items() if key != "text"}
        said = str(item.get("reason") or "")
        reason = _FUSION_SAID.get(said, said) or "the fusion found too little evidence"
        rows.append(Row(cand, DROPPED, reason, 0))
        listed.add(uri)
    return rows


# The fusion's reasons (``semantic.fusion``), in words.
_FUSION_SAID = {
    "lexical_below": "too few words in common, and no reading by meaning",
    "weak": "neither the shared words nor the meaning are strong enough, alone or together",
    # journals written before the veto was deleted (issue 39) still say it
    "semantic_veto": "it shares words with the prompt, but the model found it unrelated "
    "(a rule since removed)",
    "below_best": "related by meaning, but clearly less than the best match",
    "semantic_cap": "related by meaning, but two matches by meaning were already kept",
    "history_needs_words": "something said in a past session: shown only on words it shares "
    "with the prompt, never on resemblance alone",
    "general_question": "the prompt asks about the world (explain, define, compare) and "
    "points at nothing of yours, so no memory is shown for it",
}


def _fused(cand: Candidate) -> str:
    """How the fusion admitted it: " (semantic: lexical 0.31, meaning 6.2)"."""
    ev = cand.evidence
    sure = f"confidence {cand.confidence:.2f}" if cand.confidence is not None else ""
    if not ev:
        return f" ({sure})" if sure else ""
    meaning = ev.get("semantic")
    told = f", meaning {meaning:.1f}" if isinstance(meaning, int | float) else ""
    lexical = ev.get("lexical")
    words = f"lexical {lexical:.2f}" if isinstance(lexical, int | float) else "lexical -"
    found = "; found by the search in both languages" if ev.get("bridged") else ""
    if ev.get("shared") is False:
        found += "; no word in common, by meaning alone"
    if ev.get("reason") == "answers_who":
        found += "; the prompt asks who, and this person stands out from the others"
    if sure:
        found += f"; {sure}"
    return f" ({ev.get('decision')}: {words}{told}{found})"


def _weak_reason(cand: Candidate, trace: Trace) -> str:
    if trace.kept and cand.score < max(c.score for c in trace.kept):
        return "too little evidence next to the memories kept"
    return "too little evidence for this prompt"
