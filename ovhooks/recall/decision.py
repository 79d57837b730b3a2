"""Which candidates recall injects, for either backend: one rule set, one path.

Backends return candidates with their signals and never decide. Every candidate carries the
fusion's evidence (``semantic.fusion.Evidence``): lexical evidence and, where a model read
it in time, semantic strength in spreads above known-unrelated prompts.

- **The local store** (``Backend.rates_candidates``) rates its own: lexical evidence with
  the store's statistics, the embedding service's strength against the store's rows.
- **An embedding server's** candidates are rated here (``recall.rating``): lexical evidence
  from their text, strength from the server's score read against its probes
  (``recall.calibrate``) and the local model's reading of the text.

``judge_rated`` fuses them (the rules and their parameters are ``semantic.fusion``'s);
``decide`` then ranks the survivors, drops what this session has seen and duplicates, and
gives each kept memory its probability of being right (``recall.confidence``), against which
the user's minimum is applied.
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
    from ovhooks.semantic.answer_type import asks_general, asks_who

    if prompt and asks_general(prompt):
        fusion.decline_general(weighed)
    elif prompt and asks_who(prompt):
        fusion.answer_who(weighed)
    best: dict[str, tuple[Candidate, fusion.Evidence]] = {}
    dropped: list[dict[str, object]] = []
    for cand, ev in zip(rated, weighed, strict=True):
        cand.evidence = {**(cand.evidence or {}), **ev.as_dict()}
        if not ev.admitted:
            if not ev.rival_only:
                dropped.append({"uri": cand.uri, "text": cand.text, **cand.evidence})
            continue
        cand.score = cand.rank = round(ev.order(threshold), 4)
        kept = best.get(cand.uri)
        if kept is None or cand.score > kept[0].score:
            best[cand.uri] = (cand, ev)
    ordered = sorted(best.values(), key=lambda pair: pair[1].sort_key(threshold))
    admitted = [cand for cand, _ev in ordered]
    return admitted[:MAX_ADMITTED] + unrated, dropped[:MAX_DROPPED_SHOWN]


def judge(
    candidates: list[Candidate],
    text: str,
    backend: Backend,
    settings: Settings,
    server: ServerState,
    now: float,
) -> tuple[list[Candidate], list[dict[str, object]]]:
    """``judge_rated`` for either backend: a server's candidates are rated first
    (``recall.rating``), against its calibration when there is one."""
    if not backend.rates_candidates:
        from ovhooks.recall.rating import rate

        calibration = server_calibration(candidates, text, backend, settings, server, now)
        rate(candidates, text, settings, calibration)
    return judge_rated(candidates, text, settings.recall_score_threshold)


def server_calibration(
    candidates: list[Candidate],
    text: str,
    backend: Backend,
    settings: Settings,
    server: ServerState,
    now: float,
) -> dict[str, float] | None:
    """The server's probe calibration for the prompt's script, if one fits; a stale or
    missing one is measured again (detached in hooks, for the next prompts)."""
    from ovhooks.lexical.text import script_of
    from ovhooks.recall import calibrate

    # The bridged search's scores answer another query (``retrieve.gather``).
    best = max((c.score for c in candidates if not c.bridged), default=None)
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
    return calibration


def decide(candidates: list[Candidate], text: str, seen: Collection[str]) -> list[Candidate]:
    """The judged candidates worth injecting for the prompt ``text``, best first, each with
    its probability of being right."""
    from ovhooks.recall import confidence
    from ovhooks.recall.query import profile_query
    from ovhooks.recall.rank import rank

    ranked = rank(candidates, profile_query(text), exclude=seen)
    for k, item in enumerate(ranked):
        item.confidence = confidence.probability(item.score, later=k > 0)
    return ranked
