"""An embedding server's candidates rated the way the local store rates its own.

So one rule set (``semantic.fusion``, run by ``recall.decision.judge_rated``) decides for
both backends.

Each candidate gets the fusion's evidence:

- **lexical**: what its text shares with the prompt, weighed as the local store weighs it
  (``calibrate.LexicalEvidence``: a server gives no statistics over its store, so only the
  general-vocabulary caps apply), on the same 0..1 scale (0.55 at 2.2 units);
- **strength**, in spreads above known-unrelated prompts, from two readings when both exist:
  the server's score against its probes (``calibrate.strength``; none for a candidate only
  the bridged search found, whose score answers another query), and the local model's
  reading of the candidate's text (the embedding service's ``score`` op, within the prompt's
  deadline). Their mean is the strength; either alone when the other is missing, none when
  neither is (then words alone decide, as before a calibration exists);
- the script of its text against the prompt's, whether it shares any term, whether it names
  a person (for a who-question).

Measured against the server's own rule it replaced (``calibrate.select`` with
``semantic.rescore``): docs/SEMANTIC.md §1.3, replayed from traced OpenViking runs
(``scripts/recall_eval_unify.py``) and confirmed by the real hooks.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ovhooks.recall.rank import Candidate
    from ovhooks.semantic.client import Pending
    from ovhooks.settings.config import Settings

# Characters of each candidate's text the local model reads.
DOC_CHARS = 1000


def rate(
    candidates: Sequence[Candidate],
    prompt: str,
    settings: Settings,
    calibration: Mapping[str, float] | None,
) -> None:
    """Give every candidate its fusion evidence and its lexical score (in place)."""
    if not candidates:
        return
    from ovhooks.lexical.evidence import bare_score
    from ovhooks.lexical.text import script_of, terms
    from ovhooks.recall.calibrate import LexicalEvidence, strength
    from ovhooks.semantic.answer_type import names_person

    # Asked first: the service reads the texts while the words are weighed here.
    asked = _ask(candidates, prompt, settings)
    lexical = LexicalEvidence(prompt)
    # Each text's terms once: they weigh the pool's words and then the text's own evidence.
    docs = [terms(c.text, identifier_parts=True) for c in candidates]
    weights = lexical.pool_weights(docs)
    script = script_of(prompt)
    units = [lexical.units(c.text, weights, doc) for c, doc in zip(candidates, docs, strict=True)]
    local = _local_strengths(asked, candidates, settings)
    for cand, found in zip(candidates, units, strict=True):
        server = (
            None
            if calibration is None or cand.bridged
            else round(strength(cand.score, calibration), 3)
        )
        mine = local.get(id(cand))
        other_script = script_of(cand.text) != script
        cand.score = bare_score(found)
        cand.evidence = {
            "lexical": cand.score,
            "semantic": reading(server, mine, other_script=other_script),
            "server": server,
            "local": mine,
            "bridged": cand.bridged,
            "cross_script": other_script,
            "shared": found > 0,
            "person": names_person(cand.text),
            "rival_only": False,
        }


def reading(server: float | None, local: float | None, *, other_script: bool) -> float | None:
    """The strength the fusion weighs: for a text in the other script the local model's
    reading (a small server model scores a translation no higher than unrelated pairs), else
    the mean of the two readings; either alone when the other is missing."""
    if other_script and local is not None:
        return local
    known = [v for v in (server, local) if v is not None]
    return round(sum(known) / len(known), 3) if known else None


class _Asked:
    __slots__ = ("pending", "sent_at")

    def __init__(self, pending: Pending, sent_at: float) -> None:
        self.pending = pending
        self.sent_at = sent_at


def _ask(candidates: Sequence[Candidate], prompt: str, settings: Settings) -> _Asked | None:
    """The service asked for its reading of every candidate (started if none answers);
    None with semantics off."""
    if not settings.semantic:
        return None
    import time

    from ovhooks.semantic import client

    sent_at = time.monotonic()
    pending = client.send(
        settings.state_dir,
        {"op": "score", "text": prompt[:2000], "docs": [c.text[:DOC_CHARS] for c in candidates]},
        settings.semantic_deadline_ms / 1000.0,
    )
    if pending.reason == "absent":
        client.start(settings.state_dir, idle_s=settings.semantic_idle_s)
    return _Asked(pending, sent_at)


def _local_strengths(
    asked: _Asked | None, candidates: Sequence[Candidate], settings: Settings
) -> dict[int, float]:
    """The local model's strength of each candidate (keyed by ``id``), or nothing when the
    service did not answer within what is left of the deadline."""
    if asked is None:
        return {}
    import time

    left = settings.semantic_deadline_ms / 1000.0 - (time.monotonic() - asked.sent_at)
    answer = asked.pending.answer(left)
    if answer is None:
        return {}
    strengths = answer.get("strengths")
    if not isinstance(strengths, list) or len(strengths) != len(candidates):
        return {}
    return {
        id(c): float(s)
        for c, s in zip(candidates, strengths, strict=True)
        if isinstance(s, int | float) and not isinstance(s, bool)
    }
