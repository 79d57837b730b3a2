"""Which (already sanitised) turns carry no signal for memory, and which carry a memory trigger.

``is_noise`` returns the reason a turn is skipped, or ``None`` to keep it:

- ``empty``: nothing left after sanitising;
- ``slash``: a user slash command (``/compact``, ``/review-pr 12``): a directive to the host;
- ``ack``: an acknowledgement on its own, English or Chinese (``ok``, ``thanks!``, ``好的``,
  ``ok, continue``), or the host's own filler (``No response requested.``,
  ``Continue from where you left off.``);
- ``summary``: a host compaction summary that reached us as a message;
- ``punctuation``: no letter, digit or CJK character at all;
- ``short``: too little to remember. CJK-aware: a CJK character counts as 2.5 Latin
  alphanumerics, and a turn needs 8 of those (``fix it`` is short; ``use sqlite`` is not;
  four CJK characters such as ``用数据库吧`` are enough).

``has_memory_trigger`` is the keyword-mode gate: remember/prefer/decided…, their Chinese
counterparts, identity and preference statements, e-mail addresses and phone numbers.
"""

from __future__ import annotations

import re

from ovhooks.capture.tokens import count_wide

_ACK_WORDS = (
    # English
    "ok|okay|okey|k|kk|yes|yep|yeah|yup|ya|y|no|nope|nah|n|sure|thanks|thank you|thank u|thx|ty|"
    "tysm|cheers|done|great|good|cool|nice|perfect|awesome|excellent|fine|got it|gotcha|"
    "understood|sounds good|looks good|lgtm|go|go ahead|go on|continue|proceed|next|right|"
    "alright|all right|correct|agreed|exactly|sgtm|np|no problem|please do|do it|ship it|"
    "yes please|ok thanks|makes sense|i see|hmm|hm|ah|oh|wow|lol|bye|hi|hello|hey|"
    # Chinese
    "收到|好的|好|好吧|好滴|嗯|嗯嗯|哦|噢|可以|行|行吧|对|对的|是|是的|没错|继续|不用|不需要|"
    "没了|好了|谢谢|多谢|感谢|明白|明白了|知道了|了解|懂了|没问题|辛苦了|棒|很好|完美|ok的"
)
# One to three ack words, separated by spaces, commas or the like, with closing punctuation
# and emoji allowed: "ok", "ok, thanks!", "好的，继续。", "thanks 👍". Matched with a set and
# a split, not one expression: the alternation, three times over and case-blind, cost 4.2 ms
# to compile in every hook process that met a short prompt.
_ACK_SET = frozenset(_ACK_WORDS.split("|"))
# The words an ack can start with, and the characters that end a word for ``_ACK_SEPARATORS``
# and ``_ACK_TRAILING`` (besides whitespace): a text whose first word is none of these is no
# ack, and the two patterns (0.3 ms to compile) are not needed to say so.
_ACK_FIRST = frozenset(phrase.split(" ")[0] for phrase in _ACK_SET)
_ACK_STOPS = frozenset(",，、.!！~～?。？:)]👍🙏✅😀😊🎉")
_ACK_SEPARATORS = "[\\s,，、.!！~～]+"
_ACK_TRAILING = "[\\s.!?。！？,，~～:)\\]👍🙏✅😀😊🎉]*\\Z"

# Text the hosts write themselves into a conversation (Claude Code after a compaction).
_HOST_FILLER = (
    "no response requested.",
    "no response requested",
    "continue from where you left off.",
    "continue from where you left off",
)

_SUMMARY_PREFIXES = (
    # Claude Code compaction summary injected as a user message
    "this session is being continued from a previous conversation",
    # Codex compaction summary
    "another language model started to solve this problem",
)

_TRIGGER_SRC = (
    r"remember|preference|prefer|important|decision|decided|always|never|don't forget|"
    r"do not forget|from now on|make sure to|note that|keep in mind",
    r"记住|记得|别忘|偏好|喜欢|喜爱|崇拜|讨厌|害怕|重要|决定|总是|永远|优先|习惯|爱好|擅长|最爱|"
    r"不喜欢|以后|务必",
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}",
    r"\+\d{10,}",
    r"(?:我|\bmy)\s*(?:是|叫|名字|name|住在|live|来自|from|生日|birthday|电话|phone|邮箱|email)",
    r"(?:我|\bi)\s*(?:喜欢|崇拜|讨厌|害怕|擅长|不会|爱|恨|想要|需要|希望|觉得|认为|相信|"
    r"like|hate|love|want|need|think|believe|prefer)\b",
    r"favorite|favourite|\blove\b|\bhate\b|\benjoy|dislike|admire|\bidol\b|\bfan of\b",
)

# Compiled on first use: importing this module compiles nothing.
_compiled: dict[str, re.Pattern[str]] = {}
_trigger_res: list[re.Pattern[str]] = []

SHORT_SIGNAL = 8.0  # Latin alphanumerics (CJK counts 2.5) a turn needs to be kept
CJK_WEIGHT = 2.5


def _compile(name: str) -> re.Pattern[str]:
    """One pattern, compiled on its first use (each costs 0.1-0.2 ms, in a fresh process)."""
    found = _compiled.get(name)
    if found is None:
        if name == "slash":
            # "/name" at the very start, followed by the end, whitespace or arguments; a
            # path such as "/usr/bin/python is broken" is not a command (followed by "/").
            found = re.compile(r"/[A-Za-z0-9][\w:.-]{0,63}(?=\s|$)")
        elif name == "ack_separators":
            found = re.compile(f"({_ACK_SEPARATORS})")
        else:
            found = re.compile(_ACK_TRAILING)
        _compiled[name] = found
    return found


def _first_word(text: str) -> str:
    for i, ch in enumerate(text):
        if ch.isspace() or ch in _ACK_STOPS:
            return text[:i]
    return text


def is_ack(text: str) -> bool:
    """One to three ack words (a word may be two or three joined by one space, "thank you"),
    separated by spaces, commas or the like, and closing punctuation or emoji."""
    if _first_word(text[:40].lower()) not in _ACK_FIRST:
        return False
    trailing = _compile("ack_trailing").search(text)
    # Not empty: its first word (an ack word's, checked above) holds no closing character.
    body = text[: trailing.start() if trailing else len(text)].lower()
    # words and the separators between them: ["ok", ", ", "thank", " ", "you"]
    parts = _compile("ack_separators").split(body)
    words, gaps = parts[0::2], parts[1::2]
    if not all(words):
        return False  # a separator at the start

    def fits(start: int, left: int) -> bool:
        # words[start:] as at most ``left`` ack words
        if start == len(words):
            return True
        if left == 0:
            return False
        phrase = words[start]
        for end in range(start + 1, len(words) + 1):
            if end > start + 1:
                if gaps[end - 2] != " ":
                    break  # a word of the list holds single spaces only
                phrase += " " + words[end - 1]
            if phrase in _ACK_SET and fits(end, left - 1):
                return True
        return False

    return fits(0, 3)


def signal(text: str) -> float:
    """How much there is to remember, in Latin alphanumerics (a CJK character counts 2.5)."""
    wide = count_wide(text)
    alnum = sum(1 for ch in text if ch.isalnum() and ch < "\u3000")
    return alnum + CJK_WEIGHT * wide


def _has_content_char(text: str) -> bool:
    return any(ch.isalnum() or (ch >= "\u3000" and ch.isalpha()) for ch in text)


def is_noise(text: str, role: str) -> str | None:
    """The reason to skip a turn whose sanitised text is ``text``, or ``None`` to keep it."""
    stripped = text.strip()
    if not stripped:
        return "empty"
    head = stripped[:200].lower()
    if head.startswith(_SUMMARY_PREFIXES):
        return "summary"
    if role == "user" and stripped.startswith("/") and _compile("slash").match(stripped):
        return "slash"
    if len(stripped) <= 80:
        if is_ack(stripped):
            return "ack"
        if head in _HOST_FILLER:
            return "ack"
    if not _has_content_char(stripped):
        return "punctuation"
    # Cheap bound first: a long text has enough signal whatever its script.
    if len(stripped) < 64 and signal(stripped) < SHORT_SIGNAL:
        return "short"
    return None


def has_memory_trigger(text: str) -> bool:
    """Whether ``text`` asks to remember something or states a preference or identity fact."""
    if not text:
        return False
    if not _trigger_res:
        _trigger_res.extend(re.compile(src, re.IGNORECASE) for src in _TRIGGER_SRC)
    return any(p.search(text) for p in _trigger_res)
