"""Text of stored messages as a commit reads it: parts, prose without injected blocks and
code, lines and sentences (English and Chinese end marks; never split at ``;``)."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

# --- message text -------------------------------------------------------------------------

# Any <tag>…</tag> block: injected context or host boilerplate that capture missed. Only used
# to keep such blocks out of overviews and candidates, never to alter stored messages.
_TAG_BLOCK_RE = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>.*?</\1\s*>", re.S)
_CODE_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.S)


def message_parts(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The message's parts, a plain ``content`` string becoming one text part."""
    parts = message.get("parts")
    if isinstance(parts, list) and parts:
        return [dict(p) for p in parts if isinstance(p, dict)]
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def parts_text(parts: Iterable[Mapping[str, Any]], *, tools: bool = True) -> str:
    """All text of the parts; tool parts as ``[tool name] input output`` when ``tools``."""
    import json

    chunks: list[str] = []
    for part in parts:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            chunks.append(part["text"])
        elif kind == "tool" and tools:
            name = part.get("tool_name") or "tool"
            tool_input = part.get("tool_input")
            text_in = (
                tool_input
                if isinstance(tool_input, str)
                else json.dumps(tool_input, ensure_ascii=False, sort_keys=True)
                if tool_input
                else ""
            )
            output = part.get("tool_output")
            chunks.append(
                f"[tool {name}] {text_in} {output if isinstance(output, str) else ''}".strip()
            )
    return "\n".join(chunks)


def prose(text: str) -> str:
    """Text without tag blocks and code fences: what a person wrote, for quoting."""
    return _CODE_FENCE_RE.sub(" ", _TAG_BLOCK_RE.sub(" ", text)).strip()


def one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


# --- sentences ----------------------------------------------------------------------------

# A sentence ends at 。！？ or at . ! ? before a space; never at ; or ；: the second clause of
# "X breaks when Y; do Z" is often the fix itself.
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[。！？])|(?<=[.!?])\s+")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# "e.g. BILL-412" must not end a sentence.
_ABBREVIATION_RE = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)\.|\b[A-Za-z]\.)$", re.I)


def split_line(line: str) -> list[str]:
    out: list[str] = []
    for raw in _SENTENCE_SPLIT_RE.split(line):
        piece = raw.strip()
        if not piece:
            continue
        if out and _ABBREVIATION_RE.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def lines(text: str) -> list[str]:
    """Non-empty lines of prose, bullet marks removed: the unit a statement is kept in."""
    out = []
    for raw in text.splitlines():
        line = _BULLET_RE.sub("", raw).strip()
        if line:
            out.append(line)
    return out


def sentences(text: str) -> list[str]:
    """Sentences of prose, split on line breaks and on English and Chinese end marks."""
    return [s for line in lines(text) for s in split_line(line)]
