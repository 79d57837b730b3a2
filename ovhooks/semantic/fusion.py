"""Inject or not: lexical evidence and semantic strength, fused (pure functions).

Each candidate carries its lexical score (``lexical.evidence.score``: 0.55, the recall
threshold, at about one specific shared term) and, when the embedding service answered, its
semantic *strength*: how far its cosine with the prompt (or with the prompt's best clause,
discounted for the number of clauses) stands above what known-unrelated probe prompts reach
in the same store, in units of their spread. A candidate is injected on

- **strong lexical evidence** (the lexical bar alone, as without semantics; the model has
  no veto over it: a veto of shared words the model rated under 3 spreads cost held-out
  hits on every set and kept one unrelated prompt clean, docs/SEMANTIC.md §2.5);
- **strong semantic strength** alone (``STRONG``), or a *distinct* one: ``DISTINCT`` and at
  least ``GAP`` above every other candidate (one memory stands out, as a right answer does;
  a prompt that resembles the store in general lifts several together), or
- **moderate agreement** of both (``AGREE`` strength with ``AGREE_LEXICAL`` evidence), for
  a candidate within ``AGREE_MARGIN`` of the best other candidate's strength, or
- **meaning without a shared word**: a candidate that shares no term with the prompt at all,
  written in the prompt's script, at ``UNSHARED`` strength and the strongest of all. The
  unrelated prompts that stand as high are mostly decoys: they share a word used in another
  sense, and that word is where their similarity comes from; a paraphrase shares none.

A candidate written in another script than the prompt (a Chinese question, an English
memory) has its strength scaled by ``CROSS_SCRIPT_SCALE`` first: the model aligns the two
languages, but a translation reaches a smaller cosine above the probes than a paraphrase in
the same language does, and such a candidate can hardly share words to agree with.

History rows (what the user said in past sessions that no memory holds) pass on their words
only, alone or in agreement: one that merely resembles the prompt is mostly a past request
like this one, which tells the agent nothing.

A question that asks *who* also takes the memory naming a person that stands out from the
other person memories (from ``AGREE``, by ``WHO_GAP``; ``semantic.answer_type``), when
nothing else answers it that way.

A question about the world (``answer_type.asks_general``: explain, define, compare, with
nothing of the user's in it) needs no memory, whatever names it shares with one: every
admission is withdrawn (``decline_general``).

Semantic-only admissions are kept within ``MARGIN`` of the best one and at most
``MAX_SEMANTIC_ONLY`` of them, so a prompt about one thing does not pull in its neighbours.
Every candidate keeps its evidence and the reason it was dropped (``Evidence``), which
``ovhooks`` logs and a viewer can show as "why this memory".
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# Strengths are in units of the probes' spread, above each row's own level against them.
# Chosen on the dev splits of both labelled sets only (a replay script since removed; the
# operating curve is in docs/SEMANTIC.md): the point with the most hits at clean >= 0.96.
STRONG = 6.0
DISTINCT = 4.0
GAP = 3.0
AGREE = 4.0
AGREE_LEXICAL = 0.43
AGREE_MARGIN = 1.0
MARGIN = 2.0
MAX_SEMANTIC_ONLY = 2
# Chosen on the dev splits (the same replay, by script): cross-lingual hit
# 0.63 -> 0.80 at the same unrelated-clean 0.96; docs/SEMANTIC.md has the curve.
CROSS_SCRIPT_SCALE = 1.4
# Chosen on the dev splits (replayed, eleventh session; docs/SEMANTIC.md): the most
# paraphrase hits for at most 0.01 of unrelated-clean (paraphrase 0.10 -> 0.15, clean
# 0.92 -> 0.91). At 4.0: 0.21, clean 0.88.
UNSHARED = 4.5
# A who-question's person memory: as strong as an agreement (``AGREE``) and this far above
# every other person memory among the candidates (chosen on the dev splits; docs/SEMANTIC.md
# 4 has the bar's history and what showing weaker ones measured).
WHO_GAP = 1.0

LEXICAL = "lexical"
SEMANTIC = "semantic"
AGREEMENT = "agreement"
DROPPED = "dropped"


class Evidence:
    """Why one candidate is (not) injected: the viewer's "why this memory"."""

    __slots__ = (
        "archive",
        "cross_script",
        "decision",
        "key",
        "lexical",
        "person",
        "reason",
        "rival_only",
        "shared",
        "strength",
        "via",
    )

    def __init__(
        self,
        key: str,
        lexical: float,
        strength: float | None = None,
        via: str = "",
        *,
        cross_script: bool = False,
        shared: bool = True,
        archive: bool = False,
        person: bool = False,
        rival_only: bool = False,
    ) -> None:
        self.key = key
        self.lexical = lexical
        self.strength = strength
        self.via = via
        self.cross_script = cross_script
        # Any term in common with the prompt (False: lexical evidence of nothing at all).
        self.shared = shared
        # A history row, not a memory: never admitted on meaning alone.
        self.archive = archive
        # The text names a person in charge of something (``answer_type.names_person``).
        self.person = person
        # A person memory too weak to be a candidate: only a rival of the who-rule (``answer_who``)
        self.rival_only = rival_only
        self.decision = DROPPED
        self.reason = ""

    @property
    def weighed(self) -> float | None:
        """The strength the decision uses (scaled for a candidate in another script)."""
        if self.strength is None or not self.cross_script:
            return self.strength
        return self.strength * CROSS_SCRIPT_SCALE

    @property
    def admitted(self) -> bool:
        return self.decision != DROPPED

    def order(self, threshold: float) -> float:
        """Sort value: the lexical score; a memory admitted by its meaning sorts at the bar.
        Strength says whether a memory is about the prompt, not how much better it answers
        than one matched by words: ranked by it above the bar, semantic runners-up outlived
        rank's margin (docs/SEMANTIC.md §3)."""
        if self.weighed is None or self.decision == LEXICAL:
            return self.lexical
        return threshold

    def sort_key(self, threshold: float) -> tuple[float, float, str]:
        """Best first: by ``order``, then by strength, then by key (stable output)."""
        return (-self.order(threshold), -(self.weighed or 0.0), self.key)

    def as_dict(self) -> dict[str, object]:
        return {
            "lexical": self.lexical,
            "semantic": self.strength,
            "weighed": self.weighed,
            "via": self.via,
            "cross_script": self.cross_script,
            "shared": self.shared,
            "archive": self.archive,
            "person": self.person,
            "rival_only": self.rival_only,
            "decision": self.decision,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, key: str, data: Mapping[str, object]) -> Evidence:
        """The evidence ``as_dict`` gave (a store's entry), undecided again."""
        lexical, strength = data.get("lexical"), data.get("semantic")
        return cls(
            key,
            float(lexical) if isinstance(lexical, int | float) else 0.0,
            float(strength) if isinstance(strength, int | float) else None,
            str(data.get("via") or ""),
            cross_script=data.get("cross_script") is True,
            shared=data.get("shared") is not False,
            archive=data.get("archive") is True,
            person=data.get("person") is True,
            rival_only=data.get("rival_only") is True,
        )

    def __repr__(self) -> str:
        return f"Evidence({self.key!r}, {self.decision}, lex={self.lexical}, sem={self.strength})"


def judge(item: Evidence, threshold: float, rival: float | None = None) -> Evidence:
    """Set ``decision`` and ``reason`` of one candidate on its own evidence; ``rival`` is the
    highest strength among the other candidates (None: no other has one)."""
    strength = item.weighed
    lead = strength - rival if strength is not None and rival is not None else None
    if item.lexical >= threshold:
        item.decision, item.reason = LEXICAL, ""
        return item
    if strength is None:
        item.decision, item.reason = DROPPED, "lexical_below"
        return item
    meaning = strength >= STRONG or (strength >= DISTINCT and (lead is None or lead >= GAP))
    unshared = (
        not item.shared
        and not item.cross_script
        and strength >= UNSHARED
        and (lead is None or lead >= 0.0)
    )
    if meaning and not item.archive:
        item.decision, item.reason = SEMANTIC, ""
    elif (
        strength >= AGREE
        and item.lexical >= AGREE_LEXICAL
        and (lead is None or lead >= -AGREE_MARGIN)
    ):
        item.decision, item.reason = AGREEMENT, ""
    elif unshared and not item.archive:
        item.decision, item.reason = SEMANTIC, ""
    elif meaning or unshared:
        item.decision, item.reason = DROPPED, "history_needs_words"
    else:
        item.decision, item.reason = DROPPED, "weak"
    return item


def fuse(items: Sequence[Evidence], threshold: float) -> list[Evidence]:
    """Judge every candidate, then bound the semantic-only admissions; best first."""
    ranked = sorted((w for w in (i.weighed for i in items) if w is not None), reverse=True)
    for item in items:
        rival: float | None = None
        weighed = item.weighed
        if weighed is not None and len(ranked) > 1:
            rival = ranked[1] if weighed == ranked[0] else ranked[0]
        elif weighed is None and ranked:
            rival = ranked[0]
        judge(item, threshold, rival)
    semantic = [i for i in items if i.decision == SEMANTIC and i.weighed is not None]
    if semantic:
        best = max(i.weighed or 0.0 for i in semantic)
        kept = 0
        for item in sorted(semantic, key=lambda i: (-(i.weighed or 0.0), i.key)):
            if (item.weighed or 0.0) < best - MARGIN:
                item.decision, item.reason = DROPPED, "below_best"
            elif kept >= MAX_SEMANTIC_ONLY:
                item.decision, item.reason = DROPPED, "semantic_cap"
            else:
                kept += 1
    return sorted(items, key=lambda i: i.sort_key(threshold))


def answer_who(items: Sequence[Evidence]) -> Evidence | None:
    """After ``fuse``, for a prompt that asks who (``answer_type.asks_who``): admit the person
    memory that stands out (and return it), the strongest of the candidates naming a person,
    at ``AGREE`` and ``WHO_GAP`` above every other, unless a person memory is already
    admitted. ``items`` may hold person memories too weak to be candidates otherwise: they
    are rivals here, never in ``fuse`` (a weak row would shorten every other's lead)."""
    people = [i for i in items if i.person and not i.archive and i.weighed is not None]
    if not people or any(i.admitted for i in people):
        return None
    people.sort(key=lambda i: (-(i.weighed or 0.0), i.key))
    best = people[0]
    strength = best.weighed or 0.0
    rival = (people[1].weighed or 0.0) if len(people) > 1 else None
    if strength < AGREE or (rival is not None and strength - rival < WHO_GAP):
        return None
    best.decision, best.reason = SEMANTIC, "answers_who"
    return best


def decline_general(items: Sequence[Evidence]) -> int:
    """After ``fuse``, for a question about the world (``answer_type.asks_general``): drop
    every admitted candidate, as ``general_question``; how many were dropped."""
    withdrawn = [i for i in items if i.admitted]
    for item in withdrawn:
        item.decision, item.reason = DROPPED, "general_question"
    return len(withdrawn)
