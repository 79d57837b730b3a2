"""Strip injected context and host boilerplate from a message's text before it is sent.

What goes (wherever it sits in the text, whatever attributes its tag carries):

- context injected by memory tools, ours included: ``<openviking-context …>``,
  ``<relevant-memories>``, ``<relevant-memory>``; ``<system-reminder>`` blocks; a
  ``[Subagent Context]`` paragraph; lines ``<Event> hook additional context: …``;
- ``<private>…</private>`` spans (the user's own "do not remember this");
- Codex boilerplate: ``<environment_context>``, ``# AGENTS.md instructions for …`` with its
  ``<INSTRUCTIONS>`` block, ``<user_instructions>``, ``<skills_instructions>``,
  ``<permissions instructions>``, ``<turn_aborted>``;
- Claude Code boilerplate: ``<command-name>``, ``<command-message>``, ``<command-args>``,
  ``<local-command-stdout>``/``-stderr``, ``<local-command-caveat>``, ``<bash-stdout>``/
  ``-stderr``, ``[Request interrupted by user…]`` lines;
- NUL characters.

Real content is never touched otherwise: no rule deletes text by position or shape (the
anchor's leading-date rule ate up to 80 characters of any line starting with a date).

An opening tag without its closing tag (a block cut short by truncation) is removed up to the
first blank line, or to the end of the text when there is none: the block's own lines go, and a
paragraph the user wrote after it survives; an unclosed ``<private>`` hides everything after it
(privacy wins over content). A closing tag without an opening one is removed alone.

The function is idempotent and never lengthens its input; both are property-tested.
"""

from __future__ import annotations

import re

# Block tags removed with everything between the opening and the closing tag.
BLOCK_TAGS = (
    # injected memory / harness context
    "openviking-context",
    "relevant-memories",
    "relevant-memory",
    "system-reminder",
    "private",
    # Codex
    "environment_context",
    "INSTRUCTIONS",
    "user_instructions",
    "skills_instructions",
    "permissions instructions",
    "collaboration_mode",
    "turn_aborted",
    # Claude Code
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-stdout",
    "bash-stderr",
    "user-prompt-submit-hook",
)

# Cheap pre-check: text without any of these substrings (lower-cased) needs no regex work.
_HINTS = ("<", "[subagent context]", "hook additional context", "# agents.md", "\x00", "[request")

# A literal each of the line patterns below (in order) cannot match without.
_LINE_NEEDLES = (
    "</",
    "[Subagent Context]",
    " hook additional context:",
    "# AGENTS.md instructions",
    "[Request interrupted by user",
)

# Compiled on first use, so that importing this module compiles nothing.
_compiled: dict[str, re.Pattern[str]] = {}
_close_res: dict[str, re.Pattern[str]] = {}
_line_res: list[re.Pattern[str]] = []


def _compile() -> dict[str, re.Pattern[str]]:
    if not _compiled:
        names = "|".join(re.escape(t) for t in sorted(BLOCK_TAGS, key=len, reverse=True))
        # An opening tag: <name>, <name attr="…">, <name/>. The name must end at a tag boundary.
        # ...or cut off at the very end of the text ("…<private"): as much an opener, to a
        # model and to the stripper's own promise that none is left.
        _compiled["open"] = re.compile(rf"<\s*({names})(?:(?=[\s>/])[^<>]*>|\s*\Z)", re.IGNORECASE)
        _compiled["blank_line"] = re.compile(r"\n[ \t]*\n")
        _compiled["blank_run"] = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
        _line_res.extend(
            (
                # a closing tag whose opening tag is gone (or never was)
                re.compile(rf"</\s*(?:{names})\s*>", re.IGNORECASE),
                # "[Subagent Context]" and its paragraph
                re.compile(r"\[Subagent Context\].*?(?=\n[ \t]*\n|\Z)", re.DOTALL),
                # hook context rendered as text ("UserPromptSubmit hook additional context: …")
                re.compile(r"^[ \t]*[A-Za-z]+ hook additional context:[^\n]*$", re.MULTILINE),
                # Codex: the header line of the AGENTS.md block (the block itself is a tag)
                re.compile(r"^[ \t]*# AGENTS\.md instructions\b[^\n]*$", re.MULTILINE),
                # Claude Code: interruption markers written as user text
                re.compile(r"^[ \t]*\[Request interrupted by user[^\]\n]*\][ \t]*$", re.MULTILINE),
            )
        )
    return _compiled


def _close_re(name: str) -> re.Pattern[str]:
    key = name.lower()
    found = _close_res.get(key)
    if found is None:
        found = re.compile(rf"</\s*{re.escape(key)}\s*>", re.IGNORECASE)
        _close_res[key] = found
    return found


def _join(text: str, start: int, end: int) -> str:
    """``text`` without ``[start, end)``: a space keeps two words from running together."""
    before = text[:start]
    after = text[end:]
    if before and after and not before[-1].isspace() and not after[0].isspace():
        return before + " " + after
    return before + after


def _strip_blocks(text: str) -> str:
    patterns = _compile()
    opener = patterns["open"]
    pos = 0
    # Per tag name, the position after which no closing tag exists: a run of unterminated
    # openers must not rescan the rest of the text each time (quadratic on hostile input).
    no_close_after: dict[str, int] = {}
    while True:
        m = opener.search(text, pos)
        if m is None:
            return text
        name = m.group(1).lower()
        if m.group(0).rstrip().endswith("/>"):
            end = m.end()  # self-closing: nothing inside
        else:
            close = None
            limit = no_close_after.get(name)
            if limit is None or m.end() < limit:
                close = _close_re(name).search(text, m.end())
                if close is None:
                    no_close_after[name] = m.end()
            if close is not None:
                end = close.end()
            elif name == "private":
                end = len(text)  # an unclosed private span hides everything after it
            else:
                blank = patterns["blank_line"].search(text, m.end())
                end = blank.start() if blank is not None else len(text)
        new_text = _join(text, m.start(), end)
        # Positions after the cut moved; the memo holds for the shifted text only from here.
        shift = len(text) - len(new_text)
        no_close_after = {k: max(m.start(), v - shift) for k, v in no_close_after.items()}
        text = new_text
        pos = m.start()


def _one_pass(text: str) -> str:
    original = text
    if "\x00" in text:
        text = text.replace("\x00", "")
    lowered = text.lower()
    if any(h in lowered for h in _HINTS):
        text = _strip_blocks(text)
        for pattern, needle in zip(_line_res, _LINE_NEEDLES, strict=True):
            # each needs its literal; a line-anchored one tried at every position of a 64 kB
            # turn cost a millisecond even where the literal is absent
            if needle in text:
                text = pattern.sub("", text)
    if text != original:
        text = _compile()["blank_run"].sub("\n\n", text)
    return text.strip()


def strip_injected(text: str) -> str:
    """``text`` without injected context, private spans and host boilerplate, trimmed."""
    if not text:
        return ""
    # Removing one block can join two fragments into a new tag ("<system-" + "reminder>"):
    # repeat until nothing changes. Every changing pass shortens the text, so this ends.
    while True:
        cleaned = _one_pass(text)
        if cleaned == text:
            return cleaned
        text = cleaned
