"""An embedding server's candidates, read again with the local signal (pure functions).

OpenViking ranks by its own model; with a small one (multilingual-e5-small in the rig) a
Chinese question and the English memory that answers it score no higher than unrelated
pairs, so the calibrated rule (``recall.calibrate``) drops them. The embedding service scores
the same candidates (their abstracts) with the local model, each against the unrelated probes'
similarity to that same text. A candidate the server's rule dropped is added when

- the local strength alone passes (``fusion.STRONG``, or ``fusion.DISTINCT`` with a lead of
  ``fusion.GAP`` over the other candidates), and the server does not put it far below what
  unrelated prompts reach (``SERVER_FLOOR``: with e5-small a Chinese question meets the
  English memory that answers it about one spread *below* the probes, so the floor is
  lenient; the server's candidate list is the first filter); or
- the local strength reaches ``fusion.AGREE`` and the server's strength ``SERVER_AGREE``;

and, as the local store's semantic admissions, it is within ``fusion.MARGIN`` of the best
local strength among all the candidates (chosen or not): a question about one thing does not
bring along a neighbour the model finds clearly less related (on batch 3 with 25 candidates,
eight of the additions were such neighbours, after the right memory).

Only a candidate written in another script than the prompt (a Chinese question, an English
memory, or the reverse) may be added on these rules: that is where a small server model is
weak. Measured on batch 3 with every candidate eligible, unrelated prompts stayed clean only
0.55-0.60 (from 0.90): the server's candidates are all near the prompt's topic, and the local
signal alone over-admits among them.

A candidate in the prompt's own script is added only when **both models together** are
strong: the mean of the server's strength and the local one reaches ``BOTH_MEAN`` (each
lowered by the long-prompt lift, as the server's own bar is raised by it). Two models with
independent errors, each a reading of the same relation in spreads above unrelated prompts:
their mean is a steadier reading than either. "can I rename the enricher's application.id
to something nicer?" meets the memory that forbids it at 5.1 server spreads and 7.2 local
ones, with little in words: the server's rule (6 alone, or 2.2 units of shared words) did not
take it, and the local signal may not add a same-script candidate on its own.

A candidate only a second, bridged search found (``recall.retrieve.gather``: the prompt
with the glossary's words in the other language appended) has no server strength for the
prompt itself, so neither the floor nor agreement applies: it is added only as the best
local strength of all the candidates, at ``BRIDGED_STRONG`` or more.

What the server's rule chose stays first and in the server's order: the local signal only
adds, after it, up to the item cap; it never reorders or removes a strong server choice.
"""

from __future__ import annotations

from ovhooks.semantic import fusion

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

SERVER_FLOOR = -3.0
SERVER_AGREE = 2.0
# Chosen on the dev splits of all three labelled sets (OpenViking capture path, replayed
# from the real hooks' traces; docs/SEMANTIC.md, thirteenth session): the most hits at no
# dev unrelated prompt lost (direct 116 -> 119 of 123, paraphrase 0 -> 5 of 98, clean 75 of
# 92 unchanged); at 4.5, two unrelated prompts took a memory.
BOTH_MEAN = 5.0
# A candidate only the bridged search found (``recall.retrieve``) has no server strength for
# the prompt itself: it is added on the local signal alone, when it is the best local
# strength among all the candidates and reaches ``BRIDGED_STRONG``. Chosen on the dev splits
# of both sets (OpenViking capture path, replayed from traces; docs/SEMANTIC.md): at 6.0
# two unrelated prompts in 74 more took a memory, from 6.5 none; "the best" kept precision.
BRIDGED_STRONG = 6.5


def added(
    chosen: Sequence[str],
    candidates: Sequence[tuple[str, float, float]],
    *,
    max_items: int,
    eligible: Collection[str] | None = None,
    bridged: Collection[str] = (),
    lift: float = 0.0,
) -> list[str]:
    """Keys to add after ``chosen``: ``candidates`` are ``(key, server strength, local
    strength)`` for every candidate the server returned, chosen or not; ``eligible`` keys
    (all when None) are weighed by the local signal's own rules, the others (the prompt's
    own script) by both models' mean; all count as rivals."""
    return decide(
        chosen, candidates, max_items=max_items, eligible=eligible, bridged=bridged, lift=lift
    )[0]


def decide(
    chosen: Sequence[str],
    candidates: Sequence[tuple[str, float, float]],
    *,
    max_items: int,
    eligible: Collection[str] | None = None,
    bridged: Collection[str] = (),
    lift: float = 0.0,
) -> tuple[list[str], dict[str, str]]:
    """``(keys added, why each other candidate not chosen was not)``. ``lift``: what a long
    task prompt asks more of each strength (the local ones in ``candidates`` have paid it
    already; the server's have not). The reasons are ``both_models_weak`` (the prompt's own
    script, and the two models' mean under ``BOTH_MEAN``: the server's choice stands),
    ``below_best`` (beyond ``fusion.MARGIN`` of the best local strength),
    ``server_far_below`` (strong locally, but the server puts it under ``SERVER_FLOOR``),
    ``weak``, ``bridged_not_best`` (a ``bridged`` key under ``BRIDGED_STRONG`` or not the
    best local strength; its server value is not read), ``other_script_only`` (a ``bridged``
    key in the prompt's own script) and ``item_cap``."""
    room = max_items - len(chosen)
    locals_ = sorted((c[2] for c in candidates), reverse=True)
    picked: list[tuple[float, str]] = []
    why: dict[str, str] = {}
    for key, server, local in candidates:
        if key in chosen:
            continue
        if local < locals_[0] - fusion.MARGIN:
            why[key] = "below_best"
            continue
        if eligible is not None and key not in eligible:
            if key not in bridged and (server - lift + local) / 2.0 >= BOTH_MEAN:
                picked.append((local, key))
            else:
                why[key] = "other_script_only" if key in bridged else "both_models_weak"
            continue
        if key in bridged:
            if local >= BRIDGED_STRONG and local >= locals_[0]:
                picked.append((local, key))
            else:
                why[key] = "bridged_not_best"
            continue
        rival = locals_[1] if local == locals_[0] and len(locals_) > 1 else locals_[0]
        lead = local - rival if len(locals_) > 1 else None
        strong = local >= fusion.STRONG or (
            local >= fusion.DISTINCT and (lead is None or lead >= fusion.GAP)
        )
        if (strong and server >= SERVER_FLOOR) or (
            local >= fusion.AGREE and server >= SERVER_AGREE
        ):
            picked.append((local, key))
        else:
            why[key] = "server_far_below" if strong else "weak"
    picked.sort(key=lambda pair: (-pair[0], pair[1]))
    keep = max(0, room)
    for _, key in picked[keep:]:
        why[key] = "item_cap"
    return [key for _, key in picked[:keep]], why
