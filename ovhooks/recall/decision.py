"""Which candidates recall injects, for either backend: the one place that decides.

Backends return candidates with their signals and never decide. What the signals are
depends on what the store can measure:

- **A store that rates its candidates** (the local store: ``Backend.rates_candidates``) gives
  each one its lexical evidence and, when the embedding service answered in time, its
  semantic strength (``semantic.fusion.Evidence``). ``judge_rated`` fuses them (the rules and
  their parameters are ``semantic.fusion``'s); without a strength the lexical score alone
  met the threshold in the store.
- **An embedding server's** scores are not comparable across models: they are read against
  the same server's scores for known-unrelated probe prompts (``recall.calibrate``), then
  re-read by the local model where it runs (``recall.rescoring``). Until a calibration
  exists, only candidates that share words with the prompt pass.

Either way ``rank`` then orders the survivors, drops what this session has seen and
duplicates, and each kept memory gets its probability of being right
(``recall.confidence``), against which the user's minimum is applied.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection

    from ovhooks.backend.base import Backend
    from ovhooks.recall.rank import Candidate
    from ovhooks.recall.state import ServerState
    from ovhooks.settings.config import Settings

# Rated candidates the fusion admits that go on to ranking, best first (the store's search
# returned its ten best before the decision moved here; the block shows fewer).
MAX_ADMITTED = 10
# Dropped rated candidates kept for the viewer's "why this memory", in the store's order.
MAX_DROPPED_SHOWN = 10


def judge_rated(
    candidates: list[Candidate], prompt: str, threshold: float
) -> tuple[list[Candidate], list[dict[str, object]]]:
    """``(kept, dropped)``: the rated candidates the fusion admits, each scored for the block
    and best first, followed by the unrated ones untouched; and those it dropped (``uri``,
    ``text`` and ``Evidence.as_dict``), for the trace. ``threshold`` is the lexical bar
    (``recall_score_threshold``)."""
    from ovhooks.semantic import fusion

    rated = [c for c in candidates if c.evidence is not None and "rival_only" in c.evidence]
    if not rated:
        return candidates, []
    unrated = [c for c in candidates if c.evidence is None or "rival_only" not in c.evidence]
    weighed = [fusion.Evidence.from_dict(c.uri, c.evidence or {}) for c in rated]
    fusion.fuse([e for e in weighed if not e.rival_only], threshold)
    from ovhooks.semantic.answer_type import asks_who

    if prompt and asks_who(prompt):
        fusion.answer_who(weighed)
    best: dict[str, Candidate] = {}
    dropped: list[dict[str, object]] = []
    for cand, ev in zip(rated, weighed, strict=True):
        cand.evidence = ev.as_dict()
        if not ev.admitted:
            if not ev.rival_only:
                dropped.append({"uri": cand.uri, "text": cand.text, **cand.evidence})
            continue
        cand.score = cand.rank = round(ev.order(threshold), 4)
        kept = best.get(cand.uri)
        if kept is None or cand.score > kept.score:
            best[cand.uri] = cand
    # An admission that sorts under the bar is not shown (a weak who-answer: a known
    # defect, tests/recall/test_rank_who.py).
    admitted = sorted(
        (c for c in best.values() if c.score >= threshold), key=lambda c: (-c.score, c.uri)
    )
    return admitted[:MAX_ADMITTED] + unrated, dropped[:MAX_DROPPED_SHOWN]


def decide(
    candidates: list[Candidate],
    text: str,
    backend: Backend,
    settings: Settings,
    server: ServerState,
    seen: Collection[str],
    now: float,
) -> list[Candidate]:
    """The candidates worth injecting for the prompt ``text``, best first; a rating store's
    have been through ``judge_rated`` already."""
    from ovhooks.recall import confidence
    from ovhooks.recall.query import profile_query
    from ovhooks.recall.rank import rank

    profile = profile_query(text)
    if backend.rates_candidates:
        ranked = rank(candidates, profile, exclude=seen, strong_score=0.0)
        for k, item in enumerate(ranked):
            item.confidence = confidence.probability(item.score, later=k > 0)
        return ranked
    from ovhooks.lexical.text import script_of
    from ovhooks.recall import calibrate

    # The server's rule reads the plain search's scores only (``retrieve.gather``).
    plain = [c for c in candidates if not c.bridged]
    best = max((c.score for c in plain), default=None)
    script = script_of(text)
    stored = server.calibration()
    calibration = calibrate.usable(stored, now, script, best)
    if calibrate.needs_refresh(stored, now, script, calibration):
        # Detached (hooks): measured in the background, for the next prompts. Inline
        # (tests, dry runs): measured now, so the same inputs give the same output.
        from ovhooks.recall.probing import refresh_calibration
        from ovhooks.recall.retrieve import retrieve

        stored = refresh_calibration(backend, settings, server.key, now, retrieve)
        calibration = calibrate.usable(stored, now, script, best)
    if calibration is None:
        return rank(plain, profile, exclude=seen, strong_score=2.0)
    cap = min(calibrate.MAX_ITEMS, settings.recall_max_items)
    long_prompt = calibrate.is_long(text)  # both steps ask; clauses are split once
    chosen = calibrate.select(
        plain, profile, calibration, exclude=seen, max_items=cap, long_prompt=long_prompt
    )
    from ovhooks.recall.rescoring import with_local_signal

    shown = with_local_signal(
        chosen,
        candidates,
        text,
        settings,
        calibration,
        exclude=seen,
        max_items=cap,
        long_prompt=long_prompt,
    )
    for k, item in enumerate(shown):
        on = confidence.admitted_strength(item, calibrate.strength(item.score, calibration))
        item.confidence = confidence.server_probability(on, later=k > 0)
    return shown
