"""A prompt's clauses, and how much a best match among many of them is worth (pure).

A long task prompt ("refactor the exporter, keep the CLI flags, and deploy to staging the
usual way") needs one stored fact for one of its parts; its whole-text embedding is an
average that resembles none of them. So the prompt's sentences and clauses are embedded too
and a stored row is matched by its best clause. But the best of *k* draws is higher than one
draw by chance alone: a clause match is discounted by ``extra_max(k)``, the expected gain of
the maximum of ``k`` standard normal draws over one (about ``sqrt(2 ln k)``), in units of the
probes' spread.
"""

from __future__ import annotations

import math
import re

# Clause boundaries: sentence ends (English and Chinese), semicolons, line breaks, and
# commas or "and"/"then" before a new clause in long sentences.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|[。！？；;\n]+|(?<=[:：])\s+")
_SOFT = re.compile(r",\s+(?:and|but|then|also|so)\s+|，|、|,\s+")
MAX_CLAUSES = 8
# A clause shorter than this says too little to be matched on its own.
MIN_WORDS = 3
MIN_CJK_CHARS = 5
# A sentence longer than this is cut at its commas too.
LONG_SENTENCE_WORDS = 18


def _size(text: str) -> tuple[int, int]:
    words = len(re.findall(r"[A-Za-z0-9_]+", text))
    cjk = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return words, cjk


def _enough(text: str) -> bool:
    words, cjk = _size(text)
    return words >= MIN_WORDS or cjk >= MIN_CJK_CHARS or (words >= 2 and cjk >= 2)


def clauses(prompt: str) -> list[str]:
    """The prompt's clauses worth matching alone; empty when the prompt is one clause."""
    parts: list[str] = []
    for raw in _SENTENCE.split(prompt):
        sentence = raw.strip()
        if not sentence:
            continue
        words, cjk = _size(sentence)
        if words > LONG_SENTENCE_WORDS or cjk > 2 * LONG_SENTENCE_WORDS:
            pieces = [p.strip() for p in _SOFT.split(sentence) if p and p.strip()]
            parts.extend(p for p in pieces if _enough(p))
        elif _enough(sentence):
            parts.append(sentence)
    unique = list(dict.fromkeys(parts))
    if len(unique) <= 1:
        return []
    if len(unique) > MAX_CLAUSES:
        # The longest say the most; keep them, in the prompt's order.
        keep = set(sorted(range(len(unique)), key=lambda i: -len(unique[i]))[:MAX_CLAUSES])
        unique = [p for i, p in enumerate(unique) if i in keep]
    return unique


def extra_max(count: int) -> float:
    """Expected gain of the best of ``count`` standard normal draws over one draw."""
    if count <= 1:
        return 0.0
    return math.sqrt(2.0 * math.log(count))
