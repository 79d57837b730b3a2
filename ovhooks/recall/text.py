"""Text helpers shared by recall and session-start context: one-line, capped, boundary-safe.

Everything ovhooks injects sits inside ``<openviking-context …>…</openviking-context>``. The
capture side strips those blocks from transcripts before they are stored, so a memory that
itself contains ``</openviking-context>`` (or any other tag the stripper knows) would end the
block early and leak the rest of it back into memory. Hosts wrap the block in tags of their
own too (Claude's ``<system-reminder>``, Copilot's ``<system_reminder>``, Qwen's
``<qwen:user-prompt-submit-context>``), so any closing tag could end the host's wrapper and
make the rest read as the user's own words. ``neutralize_tags`` rewrites every closing tag,
and the opening tags ovhooks and the stripper know, into a harmless ``[name]`` form; other
angle brackets (``Vec<String>``) are left alone. Invisible characters that could hide a tag
from that rewrite or make a line display as something else (zero-width and bidi controls,
terminal escapes, other control characters) are dropped from injected text.
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


# Control characters but tab and newlines, DEL and C1; soft hyphen; format characters
# (zero-width, joiners, bidi embeddings, overrides and isolates, invisible operators, BOM).
_HIDDEN = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]"
)
# Full-width and small forms a model reads as angle brackets.
_LT, _GT = "<\uff1c\ufe64", ">\uff1e\ufe65"


def _pattern(name: str) -> re.Pattern[str]:
    if not _compiled:
        names = "|".join(re.escape(t) for t in sorted(_TAG_NAMES, key=len, reverse=True))
        # The closing ">" is optional: "</openviking-context" at a line end is read as a
        # closing tag by a model as surely as the complete one.
        _compiled["tag"] = re.compile(
            rf"[{_LT}]\s*(?:(/?)\s*({names})(?![\w-])|(/)\s*([A-Za-z][\w:.-]*))[^{_LT}{_GT}\n]*[{_GT}]?",
            re.IGNORECASE,
        )
        _compiled["space"] = re.compile(r"\s+")
        _compiled["hidden"] = re.compile(_HIDDEN)
        _compiled["bracket"] = re.compile(f"[{_LT}]")
    return _compiled[name]


def _tag(match: re.Match[str]) -> str:
    slash, name = (match.group(1), match.group(2)) if match.group(2) else match.group(3, 4)
    return f"[{slash}{name.lower()}]"


def neutralize_tags(text: str) -> str:
    """``text`` with every closing tag and every known opening tag turned into ``[name]`` /
    ``[/name]``, and no invisible or control character (newlines and tabs stay)."""
    text = _pattern("hidden").sub("", text)
    if not _pattern("bracket").search(text):
        return text
    return _pattern("tag").sub(_tag, text)


def one_line(text: str) -> str:
    """All whitespace runs (newlines included) collapsed to single spaces, trimmed; no
    invisible or control character."""
    return _pattern("space").sub(" ", _pattern("hidden").sub("", text)).strip()


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
    hidden = _pattern("hidden")
    out = uri.replace("%", "%25") if ("<" in uri or ">" in uri or hidden.search(uri)) else uri
    out = out.replace("<", "%3C").replace(">", "%3E")
    out = hidden.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), out)
    return "%20".join(out.split()) if any(c.isspace() for c in out) else out


def safe_attr(value: str) -> str:
    """A value that can sit inside a double-quoted attribute of our wrapper tags."""
    return (
        value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    )
