"""Text helpers shared by recall and session-start context: one-line, capped, boundary-safe.

Everything ovhooks injects sits inside ``<openviking-context …>…</openviking-context>``. The
capture side strips those blocks from transcripts before they are stored, so a memory that
itself contains ``</openviking-context>`` (or any other tag the stripper knows) would end the
block early and leak the rest of it back into memory. ``neutralize_tags`` rewrites such tags
into a harmless ``[name]`` form; other angle brackets (``Vec<String>``) are left alone.
"""

from __future__ import annotations

import re

from ovhooks.capture.sanitize import BLOCK_TAGS

# Tags the capture stripper removes, plus the wrappers ovhooks itself emits inside its blocks.
_TAG_NAMES = (
    *BLOCK_TAGS,
    "user-profile",
    "available-memories",
    "memory-index",
    "session-archive",
    "memory",
)

# Compiled on first use: hooks that never render pay nothing at import.
_compiled: dict[str, re.Pattern[str]] = {}


def _pattern(name: str) -> re.Pattern[str]:
    if not _compiled:
        names = "|".join(re.escape(t) for t in sorted(_TAG_NAMES, key=len, reverse=True))
        # The closing ">" is optional: "</openviking-context" at a line end is read as a
        # closing tag by a model as surely as the complete one.
        _compiled["tag"] = re.compile(rf"<\s*(/?)\s*({names})(?![\w-])[^<>\n]*>?", re.IGNORECASE)
        _compiled["space"] = re.compile(r"\s+")
    return _compiled[name]


def neutralize_tags(text: str) -> str:
    """``text`` with every known wrapper tag turned into ``[name]`` / ``[/name]``."""
    if "<" not in text:
        return text
    return _pattern("tag").sub(lambda m: f"[{m.group(1)}{m.group(2).lower()}]", text)


def one_line(text: str) -> str:
    """All whitespace runs (newlines included) collapsed to single spaces, trimmed."""
    return _pattern("space").sub(" ", text).strip()


def cut(text: str, max_chars: int, marker: str = "…") -> str:
    """``text`` shortened to at most ``max_chars`` characters, marker included.

    The cut prefers a word boundary in the last fifth of the allowance, so a sentence does
    not end mid-word when it need not; CJK text (no spaces) is cut at the limit.
    """
    if len(text) <= max_chars:
        return text
    room = max(0, max_chars - len(marker))
    head = text[:room]
    space = head.rfind(" ")
    if space >= room * 4 // 5:
        head = head[:space]
    return head.rstrip() + marker


def safe_uri(uri: str) -> str:
    """A URI (server- or memory-supplied) as one inert token for an injected line.

    A URI never legitimately holds angle brackets or whitespace; percent-encoding them keeps
    the URI meaningful while nothing in it can close, open or forge a block.
    """
    out = uri.replace("%", "%25") if ("<" in uri or ">" in uri) else uri
    out = out.replace("<", "%3C").replace(">", "%3E")
    return "%20".join(out.split()) if any(c.isspace() for c in out) else out


def safe_attr(value: str) -> str:
    """A value that can sit inside a double-quoted attribute of our wrapper tags."""
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )
