"""How likely a memory recall is about to show is a right one, and the user's minimum (pure).

The local store's fused score (lexical evidence and meaning; 0.55 is the recall bar) is mapped
to a probability by a logistic model fitted on recorded real-hook runs of the labelled sets'
dev splits (``scripts/fit_confidence.py``; its model card is docs/RECALL_CONFIDENCE.md, with
the operating curve per set and class). ``OVHOOKS_RECALL_MIN_CONFIDENCE`` drops shown memories
under that probability: 0 (the default) keeps the decision as it is; higher trades hits for
fewer wrong memories. It only removes what the decision admitted, never adds.

A server's score is its model's own scale (``recall/calibrate.py``), for which no labelled run
is recorded: there the probability is unknown (None) and the setting does not apply.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ovhooks.recall.rank import Candidate

# Written by scripts/fit_confidence.py (docs/RECALL_CONFIDENCE.md): intercept and slope.
INTERCEPT = -4.5394
SLOPE = 7.8141


def probability(score: float, intercept: float = INTERCEPT, slope: float = SLOPE) -> float:
    """P(right | shown at ``score``) on the local store (the fitting script passes the
    coefficients it is trying)."""
    z = intercept + slope * score
    if z < -40:  # exp overflows past about 709; the answer is 0 to many places already
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def apply(
    ranked: Sequence[Candidate], minimum: float, *, calibrated: bool
) -> tuple[list[Candidate], list[Candidate]]:
    """(kept, dropped under ``minimum``). Sets each candidate's ``confidence`` (None when the
    store's scores are not ``calibrated``, and then nothing is dropped)."""
    kept: list[Candidate] = []
    dropped: list[Candidate] = []
    for item in ranked:
        item.confidence = probability(item.score) if calibrated else None
        if item.confidence is not None and item.confidence < minimum:
            dropped.append(item)
        else:
            kept.append(item)
    return kept, dropped
