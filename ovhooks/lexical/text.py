"""Search terms for the local store: words for alphabetic text, bigrams for CJK.

Why not an FTS5 tokenizer alone (measured with ``scripts/bench_local_recall.py``):

- ``unicode61`` (the default) keeps a whole run of Chinese characters as one token, so
  "我喜欢用两个空格缩进" is a single term and a query for "缩进" never matches it.
- ``trigram`` indexes every three-character window: it matches substrings, but a query term
  must be at least three characters long, and most Chinese words are two characters; BM25 over
  trigrams also ranks poorly, the index is three times larger (15.8 vs 5.3 MB at 100,000
  memories), and long prompts hit common trigrams (p90 ~150 ms against ~12 ms here).

So the text is segmented here, in Python, before SQLite sees it: alphabetic words are
lowercased and lightly stemmed, and each run of CJK characters (Han, kana, hangul) becomes its
overlapping bigrams ("缩进方式" -> "缩进 进方 方式"), the standard trick for Chinese search
without a dictionary. The result is a space-separated term string that ``unicode61`` splits
back into exactly these terms, so the index and the query agree by construction, and the same
terms let Python compute how much of a query a hit covers.

Stop words (English function words, Chinese function characters) are dropped on both sides:
they carry no meaning for recall and would make an OR query touch most of the table.
"""

from __future__ import annotations

import re

_WORD_RE = re.compile(r"\w+")
_NORM_RE = re.compile(r"[^\W_]+")
# The words of a camelCase name: an upper-case run not followed by lower case (an acronym,
# "HTTP" in "HTTPServer"), or an optional capital with its lower-case letters.
_MIN_COMPOUND = 7
_CAMEL_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def is_cjk(char: str) -> bool:
    """Han (incl. extensions and compatibility), kana or hangul syllable.

    A range check rather than a regex class: compiling a class with these ranges costs about
    a millisecond per pattern, paid by every hook process that recalls.
    """
    o = ord(char)
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3040 <= o <= 0x30FF
        or 0x3400 <= o <= 0x4DBF
        or 0xAC00 <= o <= 0xD7AF
        or 0xF900 <= o <= 0xFAFF
        or 0x20000 <= o <= 0x2FFFF
    )


# Kept as text: a word list reads better than 180 quoted strings.
ENGLISH_STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each else etc
    few for from further get gets got had has have having he her here hers herself him himself
    his how i if in into is it its itself just let lets me more most my myself no nor not now of
    off on once only or other our ours ourselves out over own please same she should so some
    such than that the their theirs them themselves then there these they this those through to
    too under until up us very was we were what when where which while who whom why will with
    would you your yours yourself yourselves ok okay yes hi hello thanks thank im ive id ll re ve
    don doesn didn isn aren wasn weren won wouldn shouldn couldn can't cannot
    """.split()  # noqa: SIM905
)

# Characters that are (almost) always grammatical in Chinese: a bigram containing one is noise.
# Characters that also start common content words (过滤, 还原, 个人) are deliberately absent.
CJK_STOP_CHARS = frozenset("的了吗呢吧啊呀哦嗯么们这那是在我你他她它也就都和与及把被很之其")


def has_cjk(text: str) -> bool:
    return not text.isascii() and any(is_cjk(c) for c in text)


def written_in_cjk(text: str) -> bool:
    """Whether ``text`` is prose in Chinese (or another CJK script) with Latin words mixed in:
    more CJK characters than Latin words."""
    if text.isascii():
        return False
    cjk = sum(1 for c in text if is_cjk(c))
    latin = sum(1 for w in _WORD_RE.findall(text) if w.isascii())
    return cjk > latin


def script_of(text: str) -> str:
    """``zh`` for prompts written mostly in CJK, else ``en``: a multilingual model scores the
    two on different levels (Chinese probes sit ~0.02 higher with e5), so each has its own."""
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff" or "\u3040" <= ch <= "\u30ff")
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    # A CJK character carries about as much as a short English word (four letters).
    return "zh" if cjk and cjk * 4 >= latin else "en"


def stem(word: str) -> str:
    """A light, predictable English stem: plural endings only (``files`` -> ``file``).

    Heavier stemmers (Porter) merge unrelated code words; recall only needs "tab"/"tabs".
    """
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _cjk_terms(run: str) -> list[str]:
    if len(run) == 1:
        return [] if run in CJK_STOP_CHARS else [run]
    out = []
    for i in range(len(run) - 1):
        pair = run[i : i + 2]
        if pair[0] in CJK_STOP_CHARS or pair[1] in CJK_STOP_CHARS:
            continue
        out.append(pair)
    return out


def _runs(token: str) -> list[tuple[bool, str]]:
    """``token`` cut into maximal runs of CJK and of other word characters."""
    runs: list[tuple[bool, str]] = []
    start = 0
    current = is_cjk(token[0])
    for i in range(1, len(token)):
        kind = is_cjk(token[i])
        if kind != current:
            runs.append((current, token[start:i]))
            start, current = i, kind
    runs.append((current, token[start:]))
    return runs


def _add_word(out: list[str], word: str) -> None:
    if len(word) < 2 or word in ENGLISH_STOP_WORDS:
        return
    out.append(stem(word))


# A few coding concepts that people name by their instances: "tabs or spaces" is about
# indentation, in either language. Every text containing a member also carries the concept's
# terms, so a question about the concept finds statements about its instances (a local store
# has no embeddings to make that link). Keys and values are already-normalised terms.
_CONCEPTS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("tab", "space", "indent", "indentation", "制表", "空格", "缩进"), ("indentation", "缩进")
    ),
    **dict.fromkeys(("pytest", "unittest", "jest", "vitest", "mocha"), ("test", "测试")),
    **dict.fromkeys(("pip", "uv", "poetry", "pipenv", "npm", "pnpm", "yarn"), ("package", "依赖")),
    **dict.fromkeys(("vim", "neovim", "emac", "vscode", "helix", "编辑"), ("editor", "编辑")),
}


# The table's members name tools and habits (``pnpm``, ``tab``); its concepts name the topic
# itself (``indentation``, ``缩进``): both are specific evidence in ``evidence``.
CONCEPT_MEMBERS = frozenset(_CONCEPTS)
CONCEPT_TOPICS = frozenset(c for v in _CONCEPTS.values() for c in v)


def with_concepts(found: list[str]) -> list[str]:
    """``found`` plus the concept terms its members stand for (once each, at the end)."""
    extra = [c for t in found if t in _CONCEPTS for c in _CONCEPTS[t]]
    if not extra:
        return found
    present = set(found)
    return found + [c for c in dict.fromkeys(extra) if c not in present]


def _identifier_parts(token: str) -> list[str]:
    """The words of a snake_case or camelCase identifier (``AMAP_DEBUG_KEY`` -> amap, debug,
    key; ``TenantMiddleware`` -> tenant, middleware), or ``[]`` for a plain word.

    People name an identifier by its words ("the amap debug key", "tenant middleware") far
    more often than they spell it, so its words are search terms beside the whole.
    """
    if "_" in token:
        return [p.lower() for p in token.split("_") if p]
    # Short mixed-case words are names, not compounds: iOS, macOS, GitHub, NumPy.
    if len(token) < _MIN_COMPOUND or token.islower() or token.isupper() or not token.isalpha():
        return []
    parts = _CAMEL_RE.findall(token)
    if len(parts) < 2 or any(len(p) < 3 for p in parts):
        return []
    return [p.lower() for p in parts]


def terms(text: str, *, identifier_parts: bool = False) -> list[str]:
    """The search terms of ``text`` in order, duplicates kept (BM25 counts them).

    With ``identifier_parts`` (stored texts), an identifier gives its whole
    (``amap_debug_key``) and then each of its words. A prompt's identifiers stay whole: a
    prompt that names ``MacBook`` must not also match on "mac" and "book".
    """
    out: list[str] = []
    for raw in _WORD_RE.findall(text):
        token = raw.lower()
        if token.isascii():
            _add_word(out, token)
            if identifier_parts:
                for part in _identifier_parts(raw):
                    _add_word(out, part)
            continue
        for cjk, run in _runs(token):
            if cjk:
                out.extend(_cjk_terms(run))
            else:
                _add_word(out, run)
    return out


def term_string(text: str) -> str:
    """``terms(text)`` with concept terms, joined for the FTS5 column."""
    return " ".join(with_concepts(terms(text, identifier_parts=True)))


# A concept's own word in its verb forms names the topic: "how should I indent this" asks
# about indentation as "what indentation do we use" does, and stored texts that name any
# member carry the topic (``with_concepts``). Only prompts are mapped, so what is stored
# does not change.
_TOPIC_FORMS = dict.fromkeys(("indent", "indented", "indenting"), "indentation")


def query_terms(text: str, limit: int = 64) -> list[str]:
    """Distinct terms of a query, first occurrence first, at most ``limit``."""
    seen: dict[str, None] = {}
    for found in terms(text):
        term = _TOPIC_FORMS.get(found, found)
        if term not in seen:
            seen[term] = None
            if len(seen) >= limit:
                break
    return list(seen)


def normalise(text: str) -> str:
    """Text reduced for duplicate detection: lowercase words and CJK characters only."""
    return " ".join(_NORM_RE.findall(text.lower()))


def fts_or_query(query_terms_: list[str]) -> str:
    """An FTS5 MATCH expression: any of the terms, each quoted (terms never contain quotes)."""
    return " OR ".join(f'"{t}"' for t in query_terms_)
