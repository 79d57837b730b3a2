"""Bounds on what one queued message may carry, so the server can always accept it.

A text part over 16 KB (248 KB parts were seen), or a lone UTF-16 surrogate (from a transcript
cut mid-character or a tool's binary output), makes a record the server can never store; a
queue holding one retried it forever. Like OpenViking's own plugin: text parts are cut to
16 KB, a message's text to 48 KB in all, and every unpaired surrogate becomes U+FFFD.

``cut_middle`` is the one head-and-tail truncator of capture (a long message text, tool
inputs and results); the byte caps above keep the head only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PART_MAX_BYTES = 16 * 1024
MESSAGE_MAX_BYTES = 48 * 1024
_MARK = "\n…[cut: {n} more bytes]"


# What ``cut_middle`` reserves for its marker ("\n… [N chars omitted] …\n" is 22 characters
# plus the digits of N), so the result stays within the limit.
_MIDDLE_MARK_ROOM = 40


def cut_middle(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters (limits over 120), its middle replaced by
    ``… [N chars omitted] …``: two thirds of the room go to the head (where a message or a
    command says what it is about), the rest to the tail (how it ended). A limit of 120 or
    less keeps the head only; 0 means no limit.
    """
    if limit <= 0 or len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head - _MIDDLE_MARK_ROOM if limit > 3 * _MIDDLE_MARK_ROOM else 0
    omitted = len(text) - head - tail
    end = text[len(text) - tail :] if tail > 0 else ""
    return f"{text[:head]}\n… [{omitted} chars omitted] …\n{end}".rstrip()


def clean_surrogates(text: str) -> str:
    """Unpaired surrogates -> U+FFFD; valid text (including paired ones) is unchanged."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A pair that arrived as two code points is joined first, then what is left is lone.
        joined = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return joined.encode("utf-8", "replace").decode("utf-8")
    return text


def _cut(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    mark_room = len(_MARK.format(n=len(data)).encode("utf-8"))
    keep = max(0, limit - mark_room)
    head = data[:keep].decode("utf-8", "ignore")
    return head + _MARK.format(n=len(data) - len(head.encode("utf-8")))


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return clean_surrogates(value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {clean_surrogates(str(k)): _scrub(v) for k, v in value.items()}
    return value


def cap_message(message: dict[str, Any], stats: dict[str, int] | None = None) -> dict[str, Any]:
    """``message`` with clean strings and its text parts within the caps."""
    out: dict[str, Any] = _scrub(message)
    parts = out.get("parts")
    if not isinstance(parts, list):
        return out
    budget = MESSAGE_MAX_BYTES
    capped: list[Any] = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part["text"], str):
            text = part["text"]
            limit = min(PART_MAX_BYTES, budget)
            if limit <= len(_MARK) + 8:
                if stats is not None:
                    stats["parts_dropped_over_cap"] = stats.get("parts_dropped_over_cap", 0) + 1
                continue
            cut = _cut(text, limit)
            if cut is not text and stats is not None:
                stats["parts_cut"] = stats.get("parts_cut", 0) + 1
            budget -= len(cut.encode("utf-8"))
            capped.append({**part, "text": cut})
        else:
            capped.append(part)
    out["parts"] = capped
    if isinstance(out.get("content"), str):
        out["content"] = _cut(out["content"], MESSAGE_MAX_BYTES)
    return out
