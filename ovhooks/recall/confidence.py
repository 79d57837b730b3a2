"""How likely a memory recall is about to show is a right one, and the user's minimum (pure).

The decision (``recall.decision.decide``) gives each memory it keeps the probability that it
is right, from a logistic model fitted on recorded real-hook runs of the labelled sets' dev
splits (``scripts/fit_confidence.py``; its model card is docs/RECALL_CONFIDENCE.md, with the
operating curve per set and class) over two inputs: the fused score (lexical evidence and
meaning; 0.55 is the recall bar), and whether a better memory is shown before this one (a
memory shown second or later is right far less often at the same score). Both backends give
that score (``semantic.fusion``); the model was fitted on the local store's.

``OVHOOKS_RECALL_MIN_CONFIDENCE`` drops shown memories under their probability: 0 (the
default) keeps the decision as it is; higher trades hits for fewer wrong memories. It only
removes what the decision admitted, never adds, and never drops a memory whose probability
is unknown.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ovhooks.recall.rank import Candidate


class Model:
    """``P(right) = 1 / (1 + exp(-(intercept + slope * score + later)))``, ``later`` added
    only for a memory shown after a better one. (A plain class: ``typing`` is not imported
    on a hook's path.)"""

    __slots__ = ("intercept", "later", "slope")

    def __init__(self, intercept: float, slope: float, later: float) -> None:
        self.intercept = intercept
        self.slope = slope
        self.later = later


# Written by scripts/fit_confidence.py (docs/RECALL_CONFIDENCE.md).
LOCAL = Model(-2.7763, 5.8469, -2.0606)


def probability(score: float, later: bool = False, model: Model = LOCAL) -> float:
    """P(right | shown at ``score``, after a better memory or not) (the fitting script
    passes the model it is trying)."""
    z = model.intercept + model.slope * score + (model.later if later else 0.0)
    if z < -40:  # exp overflows past about 709; the answer is 0 to many places already
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


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
