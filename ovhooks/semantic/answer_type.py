"""What a prompt asks: who, or about the world; which memories name a person (pure; patterns
compile on first use).

A question about the world ("explain what a reverse proxy is", "what's the difference between
useMemo and useCallback?", "什么是信任策略？") needs no memory, though it often names the very
technology a memory is about ("we run Laravel 10 through Sail"), and words and meaning both
read that as a match. It is told by how it asks (explain, define, compare, what is a …) and
by pointing at nothing of the user's: no we, our, I, my, this, here, no path, file or
identifier (``asks_general``).

A question that asks *who* ("who signs off on …", "whose call is it …", "找谁", "谁说了算")
wants a person, and a memory that names one in charge of something ("Priya owns billing",
"ask him before …", "路径规划模块是老周负责的") is the kind of answer it wants. Every such
memory resembles every who-question a little (the model reads "who decides" in both), so
the fusion does not take one on that resemblance: only the person memory that stands out
from the other person memories of the store, by meaning (``fusion.WHO_*``).
"""

from __future__ import annotations

import re

_compiled: dict[str, re.Pattern[str]] = {}

_PATTERNS = {
    # A "who" that asks: at a clause's start, or after a word that asks or joins ("tell me
    # who", "and who"), not after a noun it describes ("the user who created the ticket").
    "who_en": (
        r"(?:^|[.!?\n—–(]\s*|[,;:]\s*|\b(?:me|out|know|ask|asked|wonder|sure|idea|see|check|"
        r"remember|tell|and|or|but|so|then|to|about|btw|also|ok|okay|hey|question:?)\s+)"
        r"(?:who|whom|whose)\b"
        r"|\bwho(?:'s| is| are)? (?:in charge|responsible|the (?:owner|lead|contact))\b"
        r"|\bwhich (?:person|colleague|teammate|team member|engineer|one of us)\b"
    ),
    "who_zh": r"谁|哪位|哪个同事|哪个人|找哪个",
    # How a question about the world begins (its first sentence), and the comparisons it makes.
    "world_en": (
        r"^\s*(?:(?:can|could|would) you |please |pls )?"
        r"(?:explain|define|summari[sz]e|compare|recommend|tell me about|"
        r"what(?:'s| is| are) (?:a|an)\b|what(?:'s| is| are) the (?:difference|point|purpose)\b)"
        r"|\bdifference between\b|\bvs\.?\s|\bversus\b"
    ),
    "world_zh": r"什么是|有什么区别|有啥区别|区别是什么|的区别|原理|科普|推荐|解释一下",
    # Anything of the user's, the team's or the work at hand.
    "mine_en": (
        r"\b(?i:we|we're|we've|our|ours|us|here|my|mine|i|i'm|i've|i'd|me|let's|you|your|"
        r"this|these)\b|[`/\\]|\.\w{1,4}\b|\b[a-z]+[A-Z]\w*|\b\w+_\w+"
    ),
    "mine_zh": r"我们|咱们|我的|我这|这个|这段|这次|项目|仓库|这里|这边|帮我|给我|[`/\\]",
    "cjk": r"[\u4e00-\u9fff]",
    "sentence_end": r"(?<=[.?!])\s+",
    # A person named as the one to go to: a pronoun for them, or a name with a role verb.
    "person_en": (
        r"\b(?i:he|she|him|her|hers|his)\b"
        r"|\b[A-Z][a-z]{2,}(?:\s[A-Z][a-z]+)?(?:\s(?:from|in|on)\s[\w\s-]{1,24}?)?\s"
        r"(?:owns|leads|manages|maintains|approves|reviews|decides|curates|designed|wrote|"
        r"built|tuned|signs off|is (?:the|our|on|in charge|responsible)"
        # a server runs on a port, a tool handles a format: a person runs or does a thing
        r"|(?:runs|handles|does|made)(?!\s+(?:on|in|at|as|every|with|under|inside|locally|"
        r"from|fine|well|not|n't)\b))\b"
        r"|\b(?:ask|ping|page|talk to|check with|contact|cc)\s[A-Z][a-z]{2,}\b"
    ),
    "person_zh": (
        r"[他她]|负责|在管|在维护|管的|说了算|定的|拍板|审批|签字|对接人|归.{1,10}管"
        r"|找.{1,8}(?:确认|审|批|约|过一下|商量|问|签)"
    ),
}


_ANY_CASE = ("who_en", "world_en")


def _pattern(name: str) -> re.Pattern[str]:
    if name not in _compiled:
        _compiled[name] = re.compile(_PATTERNS[name], re.I if name in _ANY_CASE else 0)
    return _compiled[name]


def asks_who(prompt: str) -> bool:
    """Whether ``prompt`` asks who (someone to go to, own, decide or approve)."""
    text = prompt[:2000]
    return bool(_pattern("who_zh").search(text) or _pattern("who_en").search(text))


def asks_general(prompt: str) -> bool:
    """Whether ``prompt`` asks about the world (to explain, define or compare something)
    and points at nothing of the user's: no memory is what it needs."""
    text = prompt[:2000].strip()
    if _pattern("cjk").search(text):
        return bool(_pattern("world_zh").search(text)) and not _pattern("mine_zh").search(text)
    first = _pattern("sentence_end").split(text, maxsplit=1)[0]
    asked = _pattern("world_en").search(first)
    # "can you explain", "tell me about": the asking's own you and me point at nothing
    rest = text[asked.end() :] if asked and asked.start() == 0 else text
    return asked is not None and not _pattern("mine_en").search(rest)


def names_person(text: str) -> bool:
    """Whether a memory names a person in charge of something (the answer to a who)."""
    head = text[:600]
    return bool(_pattern("person_en").search(head) or _pattern("person_zh").search(head))
