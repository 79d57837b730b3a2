"""Who is asked for, and which memories name a person (pure; patterns compile on first use).

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


def _pattern(name: str) -> re.Pattern[str]:
    if name not in _compiled:
        _compiled[name] = re.compile(_PATTERNS[name], re.I if name == "who_en" else 0)
    return _compiled[name]


def asks_who(prompt: str) -> bool:
    """Whether ``prompt`` asks who (someone to go to, own, decide or approve)."""
    text = prompt[:2000]
    return bool(_pattern("who_zh").search(text) or _pattern("who_en").search(text))


def names_person(text: str) -> bool:
    """Whether a memory names a person in charge of something (the answer to a who)."""
    head = text[:600]
    return bool(_pattern("person_en").search(head) or _pattern("person_zh").search(head))
