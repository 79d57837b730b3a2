"""An embedding server's scores read against its own scores for unrelated prompts.

Embedding models do not share a score scale: the rig's hash stub puts unrelated memories at
~0.5 and related ones at 0.6-0.8, while multilingual-e5-small puts *everything* in 0.86-0.98
(OpenViking reports ``(1 + cos) / 2``). A fixed threshold therefore either lets every memory
through or none. What transfers across models is how far a score stands above what the same
server gives prompts that are known to be unrelated to any memory:

- **Probes.** A few everyday prompts (cooking, geography, weather; English and Chinese) are
  searched once against the server; the best memory score of each is the store's "nothing
  relevant" level. Their trimmed mean is the ``loc``ation, their spread the ``scale`` (never
  under the spread pooled over every script's probes: a handful of probes per script can
  show a spread several times too small, and a small scale inflates every strength). The fit
  is cached per server in the recall state and refreshed every few hours (the store grows), or
  at once when live scores no longer fit it (a different model behind the same URL).
- **Strength** of a candidate: ``(score - loc) / scale``, in units of the probes' own spread:
  one of the readings the fusion weighs (``recall.rating``).

Everything here except :func:`run_probes` is pure and deterministic.
"""

from __future__ import annotations

import math

from ovhooks.lexical.text import script_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from ovhooks.recall.rank import Candidate

# Everyday prompts that no coding assistant's memory should answer. Mixed languages, because
# a multilingual model scores Chinese prompts on a slightly different level.
PROBES = (
    "how do I bake sourdough bread at home?",
    "what is the capital of Australia?",
    "recommend a good hiking trail for beginners",
    "how many legs does a spider have?",
    "what should I cook for dinner tonight with chickpeas?",
    "who won the football match last weekend?",
    "how do I get a red wine stain out of a carpet?",
    "tips for growing tomatoes on a balcony",
    "明天的天气怎么样？",
    "推荐一本好看的小说",
    "红烧肉怎么做才好吃？",
    "周末去爬山要带什么？",
    "怎么养好一盆绿萝？",
    "世界上最高的山是哪座？",
)
MIN_PROBES = 4
# Seconds the background refresh may spend on the probes (one search each, ~0.1 s with a
# real model; it runs after the hook has answered).
PROBE_BUDGET_S = 30.0
# Refit this often: the store grows, and so does the best score an unrelated prompt finds.
REFRESH_S = 6 * 3600.0
# A live best score this many scales *below* the location means the model changed.
DRIFT_SCALES = 8.0

# The scale never falls under this share of the headroom above the location: probes that
# happen to agree closely must not turn noise-sized differences into "strong" evidence. A
# share, not a cosine (the local model's floor, ``answers.COSINE_SPREAD_FLOOR``): a server's
# scores come on its own scale.
HEADROOM_SCALE_FLOOR = 0.03


def _finite(tops: Sequence[float]) -> list[float]:
    return sorted(float(v) for v in tops if isinstance(v, int | float) and math.isfinite(v))


def _kept(values: list[float]) -> list[float]:
    """The sorted probe scores that describe unrelated prompts: the highest dropped (two of
    six or more, else one), since a store may really hold a memory about one of the probes
    (someone's sourdough notes), and the level must be that of *unrelated* prompts."""
    return values[: len(values) - (2 if len(values) >= 6 else 1)]


def fit(tops: Sequence[float]) -> dict[str, float] | None:
    """The calibration from the probes' best scores, or None with too few probes."""
    values = _finite(tops)
    if len(values) < MIN_PROBES:
        return None
    kept = _kept(values)
    loc = sum(kept) / len(kept)
    var = sum((v - loc) ** 2 for v in kept) / (len(kept) - 1)
    scale = max(math.sqrt(var), HEADROOM_SCALE_FLOOR * max(1.0 - loc, 0.0), 1e-4)
    return {"loc": round(loc, 6), "scale": round(scale, 6), "n": float(len(values))}


def pooled_scale(groups: Sequence[Sequence[float]]) -> float:
    """The probes' spread pooled over every script (each around its own level), 0 when
    there is not enough to pool.

    A script's own spread rests on four to six probes, so it can come out several times too
    small by chance, and every strength in that script is inflated by as much: on both
    labelled sets the Chinese probes' spread came out at 0.0037-0.0041 against 0.0076-0.0101
    for English, and Chinese prompts then admitted three of the store's Chinese memories on
    "strength" alone whatever they asked. The pooled spread is a floor under each script's.
    """
    squares = 0.0
    freedom = 0
    for tops in groups:
        kept = _kept(_finite(tops))
        if len(kept) < 2:
            continue
        mean = sum(kept) / len(kept)
        squares += sum((v - mean) ** 2 for v in kept)
        freedom += len(kept) - 1
    return math.sqrt(squares / freedom) if freedom else 0.0


def strength(score: float, calibration: Mapping[str, float]) -> float:
    return (score - calibration["loc"]) / calibration["scale"]


def fresh(doc: object, now: float) -> bool:
    """Whether a stored calibration document is recent enough to keep using."""
    if not isinstance(doc, dict):
        return False
    at = doc.get("at")
    return isinstance(at, int | float) and at <= now < at + REFRESH_S


def usable(
    doc: object, now: float, script: str, best_score: float | None
) -> dict[str, float] | None:
    """The cached calibration for prompts in ``script`` if it is fresh and still fits the
    live scores (a best score far *below* every probe means another model answers now)."""
    if not fresh(doc, now):
        return None
    assert isinstance(doc, dict)
    group = doc.get(script)
    if not isinstance(group, dict):
        return None
    try:
        cal = {k: float(group[k]) for k in ("loc", "scale")}
    except (KeyError, TypeError, ValueError):
        return None
    if not cal["scale"] > 0:
        return None
    if best_score is not None and strength(best_score, cal) < -DRIFT_SCALES:
        return None
    return cal


def has_script(doc: object, script: str) -> bool:
    """Whether the store may hold memories written in ``script``: its calibration saw one,
    or there is no record to say otherwise (one written before ``scripts`` was recorded)."""
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    return not isinstance(scripts, list) or script in scripts


def needs_refresh(doc: object, now: float, script: str, found: Mapping[str, float] | None) -> bool:
    """Refit when the stored fit is stale, or when it is fresh but no longer fits (``found``
    is None although the document has a fit for this script: the model changed)."""
    if not fresh(doc, now):
        return True
    assert isinstance(doc, dict)
    return found is None and isinstance(doc.get(script), dict)


def run_probes(
    search: Callable[[str], Sequence[Candidate]], now: float, probes: Sequence[str] = PROBES
) -> dict[str, Any]:
    """Search every probe; return the calibration document (``at``, one fit per script, and
    ``scripts``: the scripts the store's memories that came back are written in).

    A probe that finds nothing adds no score (an empty store has nothing to calibrate). A
    search that fails raises through: the caller keeps the old calibration, or none.
    """
    tops: dict[str, list[float]] = {}
    written: set[str] = set()
    for probe in probes:
        found = search(probe)
        if found:
            tops.setdefault(script_of(probe), []).append(max(c.score for c in found))
            written.update(script_of(c.text) for c in found)
    # Probes in both languages bring back the store's memories of both, if it has them
    # (a small model puts a Chinese probe near the Chinese memories): a store that returned
    # none in a script does not need the bridged search into it (``has_script``).
    doc: dict[str, Any] = {"at": now, "scripts": sorted(written)}
    fits = {script: fit(values) for script, values in sorted(tops.items())}
    floor = pooled_scale([tops[script] for script, fitted in fits.items() if fitted is not None])
    for script, fitted in fits.items():
        if fitted is not None:
            fitted["scale"] = max(fitted["scale"], round(floor, 6))
            doc[script] = fitted
    return doc


class LexicalEvidence:
    """How much a candidate's text shares with the prompt, weighed the way the local store
    weighs it (``lexical.evidence``): an identifier, a version, a name or a term in the
    other language's words counts for much; common words little; the file name nothing.

    A server gives no statistics over its store, so every term starts at full weight and only
    the general-vocabulary caps apply. The prompt's side is computed once per prompt.
    """

    __slots__ = ("found", "named", "order", "translated")

    def __init__(self, prompt: str) -> None:
        from ovhooks.lexical.evidence import query_names
        from ovhooks.lexical.glossary import expand
        from ovhooks.lexical.text import query_terms, terms

        found = query_terms(prompt)
        self.translated = expand(prompt, found)
        self.found = found + self.translated
        self.order = terms(prompt)
        self.named = query_names(prompt)

    def units(
        self,
        text: str,
        weights: Mapping[str, float] | None = None,
        doc: list[str] | None = None,
    ) -> float:
        """``weights``: each prompt term's IDF ratio over the texts at hand (all 1 when None);
        ``doc``: the text's terms (``terms(text, identifier_parts=True)``), when the caller
        has them already."""
        from ovhooks.lexical.evidence import evidence

        if doc is None:
            from ovhooks.lexical.text import terms

            doc = terms(text, identifier_parts=True)
        units, _share = evidence(
            self.found, self.order, weights or {}, doc, text, self.translated, self.named
        )
        return units

    def pool_weights(self, docs: Sequence[list[str]]) -> dict[str, float]:
        """Each prompt term's IDF ratio over ``docs``, the terms of a server's candidates: a
        word most of them share is no sign of one of them, as a word common in the local
        store is not."""
        from ovhooks.lexical.evidence import term_weights

        df: dict[str, int] = {}
        for doc in docs:
            for term in set(doc):
                df[term] = df.get(term, 0) + 1
        return term_weights(self.found, df, len(docs))
