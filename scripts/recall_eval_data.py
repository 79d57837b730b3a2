"""The labelled recall set in tests/fixtures/recall_eval/: loading and integrity checks.

Shared by ``scripts/recall_eval.py`` (the harness) and ``tests/recall/test_recall_eval.py``
(the fast integrity test). No ovhooks import: the set must not depend on the code it judges.

The mechanical paraphrase check: a ``paraphrase`` prompt must share no content term with the
statement of any memory it expects. Terms are, after lower-casing:

- Latin-script words and compounds (``coerce_int96_timestamp_unit``, ``eks-prod-euw1``,
  ``3.11.9``) and, for compounds, their parts of three or more characters; stop words
  (function words) removed; the rest stemmed by stripping one common English suffix and keeping
  the first six letters (``migration``/``migrate`` → ``migrat``, ``exports``/``export``);
- every CJK character bigram inside a run of CJK characters, minus a few function bigrams.

A paraphrase that shares any term with its memory is rejected. The check is strict on purpose
(``versioning`` and ``version`` collide) and blind to synonyms (``db``/``database``): it proves
that a prompt cannot be matched by shared words, not that it means the same thing.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

DATA_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "fixtures", "recall_eval"
)
CLASSES = ("direct", "paraphrase", "long", "crosslingual", "unrelated")
SPLITS = ("dev", "heldout")
LONG_WORDS = (60, 200)

_STOP_TEXT = """
a about above after again against all also am an and any are aren't as at be because been
before being below between both but by can can't cannot could couldn't did didn't do does
doesn't doing don't down during each else etc few for from further get gets got had hadn't
has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself
his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just let's me
more most mustn't my myself no nor not now of off on once only or other ought our ours
ourselves out over own same shan't she she'd she'll she's should shouldn't so some such
than that that's the their theirs them themselves then there there's these they they'd
they'll they're they've this those through to too under until up us very was wasn't we
we'd we'll we're we've were weren't what what's when when's where where's which while who
who's whom why why's will with won't would wouldn't you you'd you'll you're you've your
yours yourself yourselves e.g ok okay please thanks yes s t d ll re ve m
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
CJK_STOP_BIGRAMS = frozenset(("我们", "一个", "这个", "那个", "什么", "怎么", "可以", "的是"))
SUFFIXES = (
    "ingly",
    "ations",
    "ation",
    "ments",
    "ment",
    "ings",
    "ing",
    "ies",
    "ied",
    "es",
    "ed",
    "ly",
    "s",
)

_LATIN = re.compile(r"[a-z0-9]+(?:['._/-][a-z0-9]+)*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


def stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:6]


def latin_terms(text: str) -> set[str]:
    terms: set[str] = set()
    for match in _LATIN.finditer(text.lower()):
        word = match.group(0)
        parts = re.split(r"['._/-]", word)
        candidates = [word] if len(parts) == 1 else [word] + [x for x in parts if len(x) >= 3]
        for candidate in candidates:
            if candidate in STOP_WORDS or candidate.split("'")[0] in STOP_WORDS:
                continue
            terms.add(stem(candidate) if candidate.isalpha() else candidate)
    return terms


def cjk_terms(text: str) -> set[str]:
    terms: set[str] = set()
    for run in _CJK_RUN.findall(text):
        for i in range(len(run) - 1):
            bigram = run[i : i + 2]
            if bigram not in CJK_STOP_BIGRAMS:
                terms.add(bigram)
        if len(run) == 1:
            terms.add(run)
    return terms


def content_terms(text: str) -> set[str]:
    return latin_terms(text) | cjk_terms(text)


def shared_terms(prompt: str, statement: str) -> set[str]:
    """The content terms a prompt shares with a memory's statement (empty for a paraphrase)."""
    return content_terms(prompt) & content_terms(statement)


def word_count(text: str) -> int:
    """Words of a long prompt: Latin words, plus one per two CJK characters."""
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    return len(_LATIN.findall(text.lower())) + cjk // 2


def has_cjk(text: str) -> bool:
    return bool(_CJK_RUN.search(text))


def dev_only_memories(data: dict[str, Any]) -> set[str]:
    """Memories of sessions added later for tuning only (``"dev_only": true``).

    The dev/held-out split was made once, stratified, over the other sessions; these extra
    sessions only grow ``dev``, so they stay out of the balance between the two parts.
    """
    sessions = {s["id"] for s in data["memories"]["sessions"] if s.get("dev_only")}
    return {m["id"] for m in data["memories"]["memories"] if m["session"] in sessions}


def load(data_dir: str = DATA_DIR) -> dict[str, Any]:
    with open(os.path.join(data_dir, "memories.json"), encoding="utf-8") as fh:
        memories = json.load(fh)
    with open(os.path.join(data_dir, "prompts.json"), encoding="utf-8") as fh:
        prompts = json.load(fh)
    return {"memories": memories, "prompts": prompts}


def problems(data: dict[str, Any]) -> list[str]:
    """Everything wrong with the set (empty when it is sound)."""
    out: list[str] = []
    memories = data["memories"]["memories"]
    sessions = data["memories"]["sessions"]
    prompts = data["prompts"]["prompts"]
    by_id: dict[str, dict[str, Any]] = {}
    for memory in memories:
        if memory["id"] in by_id:
            out.append(f"duplicate memory id {memory['id']}")
        by_id[memory["id"]] = memory
        if memory["split"] not in SPLITS:
            out.append(f"{memory['id']}: split {memory['split']!r}")
        if memory["lang"] not in ("en", "zh") or (memory["lang"] == "zh") != has_cjk(
            memory["statement"]
        ):
            out.append(f"{memory['id']}: language {memory['lang']!r} does not match its text")
        for key in memory["evidence"]:
            if key.lower() not in memory["statement"].lower():
                out.append(f"{memory['id']}: evidence {key!r} is not in the statement")
    stated: list[str] = []
    for session in sessions:
        for turn in session["turns"]:
            if "memory" in turn:
                stated.append(turn["memory"])
                if by_id.get(turn["memory"], {}).get("session") != session["id"]:
                    out.append(f"{turn['memory']} stated in {session['id']}, listed elsewhere")
                if session.get("dev_only") and by_id.get(turn["memory"], {}).get("split") != "dev":
                    out.append(f"{turn['memory']} is in dev-only session {session['id']}")
    if sorted(stated) != sorted(by_id):
        out.append("every memory must be stated exactly once in the sessions")
    seen_prompts: set[str] = set()
    texts: set[str] = set()
    for prompt in prompts:
        pid = prompt["id"]
        if pid in seen_prompts:
            out.append(f"duplicate prompt id {pid}")
        seen_prompts.add(pid)
        if prompt["text"] in texts:
            out.append(f"{pid}: duplicate prompt text")
        texts.add(prompt["text"])
        out.extend(_prompt_problems(prompt, by_id))
    return out


def _prompt_problems(prompt: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> list[str]:
    pid, cls, text = prompt["id"], prompt["class"], prompt["text"]
    expected, decoys = prompt.get("expected", []), prompt.get("decoy_of", [])
    out: list[str] = []
    if cls not in CLASSES:
        return [f"{pid}: class {cls!r}"]
    named = expected if cls != "unrelated" else decoys
    missing = [m for m in named if m not in by_id]
    if missing or not named:
        return [f"{pid}: names unknown or no memories {missing}"]
    if cls == "unrelated":
        if expected:
            out.append(f"{pid}: an unrelated prompt expects nothing")
        if not any(shared_terms(text, by_id[m]["statement"]) for m in decoys):
            out.append(f"{pid}: shares no word with the memories it is a decoy of")
    splits = {by_id[m]["split"] for m in named}
    if splits != {prompt["split"]}:
        out.append(f"{pid}: split {prompt['split']} but its memories are {sorted(splits)}")
    if cls == "paraphrase":
        for m in expected:
            common = shared_terms(text, by_id[m]["statement"])
            if common:
                out.append(f"{pid}: paraphrase shares {sorted(common)} with {m}")
    if cls == "long" and not LONG_WORDS[0] <= word_count(text) <= LONG_WORDS[1]:
        out.append(f"{pid}: long prompt has {word_count(text)} words")
    same_language = any(has_cjk(text) == (by_id[m]["lang"] == "zh") for m in expected)
    if cls == "crosslingual" and same_language:
        out.append(f"{pid}: cross-lingual prompt in its memory's language")
    lang = "zh" if has_cjk(text) else "en"
    if prompt["lang"] != lang:
        out.append(f"{pid}: lang {prompt['lang']} but text is {lang}")
    return out
