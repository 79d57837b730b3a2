"""What to search for, and the prompt's words for ranking (pure functions).

The search query is the prompt plus the user's last few turns (seed 004): a follow-up such as
"and how do we deploy it?" carries little on its own. The *profile* used for reranking comes
from the prompt alone, so the current turn decides what ranks first.
"""

from __future__ import annotations

import re

PROMPT_QUERY_CHARS = 2000
TURN_QUERY_CHARS = 300
RECENT_TURNS = 3

_STOPWORD_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its me my of on or our please should so than that the their them then there "
    "these they this to us was we were what when where which who whom whose why will with "
    "would you your yours also just about any some all get got let make use using need want "
    "like know think tell show give help now here very really"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Compiled on first use: importing this module costs nothing on prompts that are skipped.
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(name: str) -> re.Pattern[str]:
    if not _compiled:
        # Latin words (with inner dots, dashes, underscores: "fly.io", "pre-commit") and runs
        # of other letters, whose CJK parts ``_cjk_runs`` keeps. Not a ``[\u3400-\u9fff]``
        # class: compiling that range costs 1.1 ms in every hook process that ranks (0.14 ms).
        _compiled["word"] = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*|[^\W\d_a-z]+")
    return _compiled[name]


def content_tokens(text: str) -> list[str]:
    """Distinct content words of ``text`` in order of appearance.

    Latin words are lower-cased, stop words and single characters dropped; a CJK run becomes
    its character bigrams (a lone CJK character is kept as is), which is what lets
    ``编辑器`` in a prompt meet ``编辑器`` inside a longer memory sentence.
    """
    seen: dict[str, None] = {}
    for token in _pattern("word").findall(text.lower()):
        if not token.isascii():
            for run in _cjk_runs(token):
                grams = [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
                for gram in grams:
                    seen.setdefault(gram, None)
        elif len(token) > 1 and token not in _STOPWORDS:
            seen.setdefault(stem(token), None)
    return list(seen)


def _cjk_runs(token: str) -> list[str]:
    """The maximal runs of CJK ideographs (U+3400-U+9FFF) in ``token``; other letters (kana,
    accented Latin) are not words here."""
    runs: list[str] = []
    start = -1
    for i, char in enumerate(token):
        if "\u3400" <= char <= "\u9fff":
            if start < 0:
                start = i
        elif start >= 0:
            runs.append(token[start:i])
            start = -1
    if start >= 0:
        runs.append(token[start:])
    return runs


STEM_CHARS = 6


def stem(word: str) -> str:
    """A crude English stem: no plural ``s``, then the first six letters.

    Enough for ``tests``/``test``, ``migrated``/``migration``, ``deploys``/``deployment``,
    while ``configure`` and ``confirm`` stay apart. Tokens are only compared, never shown.
    """
    if not word.isalpha():
        return word
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:STEM_CHARS]


class QueryProfile:
    """The prompt's content words, for ranking."""

    __slots__ = ("tokens",)

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self.tokens = tokens


def profile_query(prompt: str) -> QueryProfile:
    return QueryProfile(tuple(content_tokens(prompt)))


def build_query(prompt: str, recent_turns: list[str]) -> str:
    """The search text: the prompt, then the most recent earlier turns (newest first), capped."""
    parts = [prompt[:PROMPT_QUERY_CHARS]]
    for turn in reversed(recent_turns[-RECENT_TURNS:]):
        text = turn.strip()[:TURN_QUERY_CHARS]
        if text and text not in parts:
            parts.append(text)
    return "\n".join(parts)


def bridged_query(query: str, prompt: str) -> str | None:
    """The search text with the glossary's words for ``prompt`` in the other language
    appended, or None when the glossary names nothing in it.

    For a second search on an embedding server (``recall.retrieve.gather``): a small
    multilingual model puts a Chinese question near the store's Chinese memories of any
    topic, and the English memory that answers it outside the candidates it returns.
    """
    from ovhooks.lexical.glossary import other_language_words
    from ovhooks.lexical.text import query_terms

    words = other_language_words(prompt, query_terms(prompt))
    return f"{query}\n{' '.join(words)}" if words else None
