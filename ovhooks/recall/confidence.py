"""How likely a memory recall is about to show is a right one, and the user's minimum (pure).

The decision (``recall.decision.decide``) gives each memory it keeps the probability that it
is right, from a logistic model fitted on recorded real-hook runs of the labelled sets' dev
splits (``scripts/fit_confidence.py``; its model card is docs/RECALL_CONFIDENCE.md, with the
operating curve per set and class). One model per kind of score, each over one number:

- the local store: the fused score (lexical evidence and meaning; 0.55 is the recall bar);
- an OpenViking server: the strength the memory was admitted on, in probe scales
  (``recall.calibrate``): the server's, or for a memory the local model added, the local
  model's (``recall.rescoring``). A memory with neither (no calibration yet, or found only
  by the bridged search) has no probability.

``OVHOOKS_RECALL_MIN_CONFIDENCE`` drops shown memories under their probability: 0 (the
default) keeps the decision as it is; higher trades hits for fewer wrong memories. It only
removes what the decision admitted, never adds, and never drops a memory whose probability
is unknown.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ovhooks.recall.rank import Candidate

# Written by scripts/fit_confidence.py: intercept and slope, for the local store's score
# (docs/RECALL_CONFIDENCE.md) and for a server's admitted strength
# (docs/RECALL_CONFIDENCE_SERVER.md).
INTERCEPT = -4.5394
SLOPE = 7.8141
SERVER_INTERCEPT = -2.5056
SERVER_SLOPE = 0.6122


def probability(score: float, intercept: float = INTERCEPT, slope: float = SLOPE) -> float:
    """P(right | shown at ``score``) on the local store (the fitting script passes the
    coefficients it is trying)."""
    z = intercept + slope * score
    if z < -40:  # exp overflows past about 709; the answer is 0 to many places already
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def admitted_strength(item: Candidate, server_strength: float | None) -> float | None:
    """The strength an OpenViking memory was admitted on: the local model's when it added
    the memory (``rescoring``'s evidence says ``semantic``), else the server's
    (``server_strength``, None for a memory only the bridged search found)."""
    evidence: Mapping[str, object] = item.evidence or {}
    local = evidence.get("semantic")
    if evidence.get("decision") == "semantic" and isinstance(local, int | float):
        return float(local)
    return None if item.bridged else server_strength


def server_probability(strength: float | None) -> float | None:
    """P(right | an OpenViking memory admitted at ``strength``); None when unknown."""
    if strength is None:
        return None
    return probability(strength, SERVER_INTERCEPT, SERVER_SLOPE)


def apply(ranked: Sequence[Candidate], minimum: float) -> tuple[list[Candidate], list[Candidate]]:
    """(kept, dropped under ``minimum``), on the ``confidence`` the decision gave each
    candidate (None: unknown, never dropped)."""
    kept: list[Candidate] = []
    dropped: list[Candidate] = []
    for item in ranked:
        if item.confidence is not None and item.confidence < minimum:
            dropped.append(item)
        else:
            kept.append(item)
    return kept, dropped
