"""How much a stored text's shared terms say that it answers the prompt (pure functions).

Relevance here rewards *evidence*, not coverage: what counts is what the prompt and the text
have in common, never the share of a long prompt the text covers (a task prompt of 150 words
must not dilute the one memory it needs). Each shared term weighs its specificity:

- IDF over the store, relative to the rarest possible term (a term in every memory weighs
  nothing), capped by ``common.background_cap`` (on a store of forty memories every word
  looks rare; "service" is not);
- a *specific* term weighs in full and adds a bonus: an identifier, a version, a number of
  four digits or more (a port, a year), two parts of one file name, path or hyphenated name
  (``colors.json``, ``eks-prod-euw1``), or a word the stored text writes as a name or an
  acronym (``Priya``, ``SkyWalking``) — a name a little less, as names also occur by chance;
- a Latin word in a prompt or text otherwise written in Chinese counts as a name: a
  Chinese speaker switches script for the names of tools and systems ("celery 的 redis");
- the words of a stored identifier (``amap``, ``debug``, ``key`` of ``AMAP_DEBUG_KEY``) are
  indexed beside it, so a prompt may name it by its words; like the parts of a file name,
  they are specific only when two are shared and one of them is a rare word;
- words the prompt and the text share side by side ("billing service") add a little.

A text passes the recall threshold (0.55) with about 2.5 units of evidence: one specific
term (1 + 1.5), a name and one more word, or three rare words; two rare words that merely
occur in both do not.
"""

from __future__ import annotations

import itertools
import math
import re

from ovhooks.lexical.common import background_cap
from ovhooks.lexical.text import (
    CONCEPT_MEMBERS,
    CONCEPT_TOPICS,
    ENGLISH_STOP_WORDS,
    is_cjk,
    terms,
    with_concepts,
    written_in_cjk,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

EVIDENCE_AT_THRESHOLD = 2.2
SPECIFIC_BONUS = 1.5
# A name alone ("sort these names: Priya, Dana") is not quite enough: one more shared word is.
NAME_BONUS = 1.0
PAIR_BONUS = 0.4
MAX_PAIRS = 2
# CJK terms are overlapping character pairs: a three-character word is two of them, so a
# pair that continues the previous matched pair counts this much.
CJK_CHAIN_WEIGHT = 0.5
RECENCY_HALF_LIFE_DAYS = 90.0

# Latin tokens as written, with the characters identifiers and paths are made of.
_TOKEN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/:=]*[A-Za-z0-9_]|[A-Za-z0-9]")


def idf(df: int, total: int) -> float:
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def term_weights(query: list[str], df: dict[str, int], total: int) -> dict[str, float]:
    """Each query term's IDF relative to the rarest possible term (0..1)."""
    rarest = idf(1, total) or 1.0
    return {t: min(1.0, idf(df[t], total) / rarest) if t in df else 1.0 for t in query}


# What the stored text's way of writing a term says about it: an identifier, a number long
# enough to be a port or a year, or a version (``IDENT``); a name or an acronym (``NAME``);
# one part of a file name, path or hyphenated identifier (a group number from 0 up: the
# part is specific only when the prompt shares another part of the same whole).
IDENT = -1
NAME = -2


def specific_terms(
    text: str, doc_terms: Collection[str] | None = None, wanted: Collection[str] | None = None
) -> dict[str, int]:
    """Terms ``text`` writes the way specific things are written, with their kind.

    ``doc_terms`` (the text's indexed terms, if known) and ``wanted`` (the only terms asked
    about) save work on the recall path: tokens that contain none of ``wanted`` are skipped.
    """
    out: dict[str, int] = {}
    group = 0
    for token in _TOKEN_RE.findall(text):
        if wanted is not None:
            lowered = token.lower()
            if not any(w in lowered for w in wanted):
                continue
        found = terms(token, identifier_parts=True)
        if not found:
            continue
        parts: list[str] = []
        for term in found:
            if "_" in term or (not term.isdigit() and any(c.isdigit() for c in term)):
                out[term] = IDENT  # order_db_ro, utf8mb4, euw1
            elif term.isdigit() and len(term) >= 4:
                out[term] = IDENT  # 5173, 2025
            else:
                parts.append(term)
        if len(found) > 1:
            if len(parts) > 1:
                for term in parts:
                    out.setdefault(term, group)
                group += 1
        elif parts and not token.isdigit():
            word = parts[0]
            written_as_name = token[0].isupper() or any(c.isupper() for c in token[1:])
            if written_as_name and word not in ENGLISH_STOP_WORDS and background_cap(word) >= 1:
                out.setdefault(word, NAME)
    if written_in_cjk(text):
        # Latin words in Chinese prose are names of tools, services and systems ("celery 的
        # redis"): a Chinese speaker switches script exactly for those.
        for term in terms(" ".join(_TOKEN_RE.findall(text))):
            wanted_here = wanted is None or term in wanted
            if wanted_here and term not in out and term.isascii() and background_cap(term) >= 1:
                out[term] = NAME
    indexed = (
        doc_terms if doc_terms is not None else with_concepts(terms(text, identifier_parts=True))
    )
    for term in CONCEPT_TOPICS.intersection(indexed):
        if background_cap(term) >= 1.0:
            out.setdefault(term, IDENT)
    # Members name tools and habits (pytest, pnpm, tab), none of them common words.
    for term in CONCEPT_MEMBERS.intersection(indexed):
        out.setdefault(term, NAME)
    return out


def identifier_words(text: str) -> set[str]:
    """Terms ``text`` has only as words of its identifiers (``add`` of ``AddIndex``)."""
    return set(terms(text, identifier_parts=True)) - set(terms(text))


def query_names(text: str) -> frozenset[str]:
    """The Latin terms of a prompt written in Chinese: the names it switches script for."""
    if not written_in_cjk(text):
        return frozenset()
    return frozenset(t for t in terms(" ".join(_TOKEN_RE.findall(text))) if t.isascii())


def _chained(query_order: list[str], doc_terms: set[str]) -> set[str]:
    """Matched CJK pairs that overlap the matched pair before them ("制表", "表符")."""
    out: set[str] = set()
    for before, term in itertools.pairwise(query_order):
        if (
            term in doc_terms
            and before in doc_terms
            and is_cjk(term[0])
            and len(before) == 2
            and before[1] == term[0]
        ):
            out.add(term)
    return out


def _pairs(query_order: list[str], doc_order: list[str]) -> int:
    """How many neighbouring query terms are also neighbours in the text."""
    doc_pairs = set(itertools.pairwise(doc_order))
    seen: set[tuple[str, str]] = set()
    for pair in itertools.pairwise(query_order):
        if pair in doc_pairs or (pair[1], pair[0]) in doc_pairs:
            seen.add(pair)
    return len(seen)


def evidence(
    query: list[str],
    query_order: list[str],
    weights: Mapping[str, float],
    doc_order: list[str],
    content: str,
    translated: Collection[str] = (),
    named: Collection[str] = (),
) -> tuple[float, float]:
    """``(evidence, share of the text's own weight matched)`` for one stored text.

    ``translated``: query terms added by the glossary (the other language's word for a term
    of the prompt): never specific. ``named``: terms
    the prompt writes as names (Latin words in a Chinese prompt, ``query_names``).
    """
    doc_terms = set(doc_order)
    matched = [t for t in query if t in doc_terms]
    if not matched:
        return 0.0, 0.0
    specific = specific_terms(content, doc_terms, matched)
    for term in named:
        if term in doc_terms and term not in specific and background_cap(term) >= 1.0:
            specific[term] = NAME
    groups: dict[int, int] = {}
    # A group counts only when one of its shared parts is a rare word: "debug" and "key" of
    # AMAP_DEBUG_KEY are shared by any question about debugging a key error.
    rare_groups: set[int] = set()
    for term in matched:
        kind = specific.get(term)
        if kind is not None and kind >= 0:
            groups[kind] = groups.get(kind, 0) + 1
            if background_cap(term) >= 1.0:
                rare_groups.add(kind)
    chained = _chained([*query_order, *translated], doc_terms)
    total = 0.0
    bonus = 0.0
    for term in matched:
        ratio = weights.get(term, 1.0)
        # A glossary translation is a general work word: never specific.
        kind = None if term in translated else specific.get(term)
        if kind is not None and (kind < 0 or (groups[kind] > 1 and kind in rare_groups)):
            bonus = max(bonus, NAME_BONUS if kind == NAME else SPECIFIC_BONUS)
            total += ratio
            continue
        weight = min(ratio, background_cap(term))
        total += weight * (CJK_CHAIN_WEIGHT if term in chained else 1.0)
    # Shared neighbours ("billing service deploys") add a little, two pairs at most.
    pairs = _pairs([t for t in query_order if t in doc_terms], doc_order)
    pairs = min(MAX_PAIRS, pairs + _pairs([t for t in translated if t in doc_terms], doc_order))
    total += PAIR_BONUS * pairs + bonus
    # The share is of what the text says: the words of its identifiers, indexed so a prompt
    # can name them, are not more of it.
    said = (
        doc_terms - identifier_words(content)
        if "_" in content or not content.islower()
        else doc_terms
    )
    own = sum(min(weights.get(t, 1.0), background_cap(t)) for t in said)
    mine = sum(min(weights.get(t, 1.0), background_cap(t)) for t in matched)
    return total, (mine / own if own else 0.0)


def score(evidence_units: float, share: float, *, age_days: float, bonus: float) -> float:
    """A 0..1 score: 0.55 (the default threshold) at ``EVIDENCE_AT_THRESHOLD``.

    The share of the text matched, recency (half-life 90 days) and ``bonus`` (1 for a memory
    of this project, 0.5 for a user-level memory, 0 for history) break near-ties; together
    they move the score by at most ±0.03, about a quarter of one rare word.
    """
    recency = 0.5 ** (max(0.0, age_days) / RECENCY_HALF_LIFE_DAYS)
    nudge = 0.02 * (share - 0.5) + 0.01 * (recency - 0.5) + 0.01 * (bonus - 0.5)
    return bare_score(evidence_units, nudge)


def bare_score(evidence_units: float, nudge: float = 0.0) -> float:
    """The 0..1 score of ``evidence_units`` alone (a server's candidate: no share, age or
    project known), plus ``nudge``."""
    base = 0.55 + 0.12 * (evidence_units - EVIDENCE_AT_THRESHOLD)
    return float(round(max(0.05, min(0.99, base + nudge)), 4))
