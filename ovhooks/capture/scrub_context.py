"""The scrubber's context rules and card numbers (see ``scrub`` for the whole picture).

Context rules (``scrub_rules.CONTEXT``) run only near their anchors (literals found by
``scrub_needles``, or a few expressions), not over the whole text: in a window around each,
skipped when it lacks a literal every match holds (``scrub_anchors.window``), and tried only where a
match can start when the rule says where (``_STARTS``); a line rule (``.pgpass``) is tried
on each line holding an anchor. Card numbers must pass Luhn and carry a real issuer's
prefix and length.
"""

from __future__ import annotations

import re

from ovhooks.capture.scrub_anchors import RegexAnchor
from ovhooks.capture.scrub_families import cookie_spans, symbol_secret
from ovhooks.capture.scrub_values import (
    is_placeholder,
    looks_like_code,
    password_like,
    randomish,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from ovhooks.capture.scrub_compiled import Compiled, Span

_MARKER = "[REDACTED:"


def _anchor_spans(
    anchor: RegexAnchor | tuple[str, ...], lowered: str, hits: dict[str, list[int]]
) -> list[tuple[int, int]]:
    if not isinstance(anchor, tuple):
        if anchor.starts:
            places = sorted({at for literal in anchor.starts for at in hits[literal]})
            if not places:
                return []
            matches = _matches_at(anchor.lazy.get(), lowered, places, 0, len(lowered))
            return [m.span() for m in matches]
        if not any(gate in lowered for gate in anchor.gates):
            return []
        return [m.span() for m in anchor.lazy.get().finditer(lowered)]
    found: list[tuple[int, int]] = []
    for literal in anchor:
        # the non-overlapping occurrences, as a find loop stepping by the literal's length
        # gives them, taken from all of them
        size = len(literal)
        taken = 0
        for at in hits[literal]:
            if at >= taken:
                found.append((at, at + size))
                taken = at + size
    if len(anchor) > 1:
        found.sort()
    return found


# Where a rule's matches can start, for rules scanned from those places only instead of at
# every position of their windows: the prose rule "token is …" / "api key: …" starts at its
# key word, which holds one of these needles this many characters in, and starts with the
# literal given ("api_key": "key" 4 characters after an "api"). Every position a match can
# start at is in the list, so the matches are the same.
_STARTS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "credential": (
        ("token", 0, ""), ("secret", 0, ""), ("cred", 0, ""), ("key", 3, "api"),
        ("key", 4, "api"), ("key", 6, "access"), ("key", 7, "access"),
    ),
}  # fmt: skip


def _starts(kind: str, hits: dict[str, list[int]], lowered: str) -> list[int] | None:
    """The sorted places a rule's matches can start at, or None to scan its windows whole."""
    spec = _STARTS.get(kind)
    if spec is None:
        return None
    return sorted(
        {
            at - offset
            for needle, offset, lead in spec
            for at in hits[needle]
            if at >= offset and lowered.startswith(lead, at - offset)
        }
    )


Windows = dict[tuple[int, bool, str], list[tuple[int, int]]]


def scan_context(
    text: str,
    lowered: str,
    c: Compiled,
    spans: list[Span],
    hits: dict[str, list[int]],
    seen: Windows,
    markers: list[tuple[int, int]] | None = None,
) -> None:
    """Spans found by the context rules in the windows around their anchors (``markers``:
    the markers a previous pass left, see ``_scan_lines``).

    ``seen`` keeps, per rule and window text, what the window gave: a later pass over the
    same text with some spans replaced meets most windows again unchanged (the window text
    key holds the character before the window too, which ``\\b`` and look-behinds read).
    """
    n = len(text)
    for index, (kind, lazy, anchor, (before, after, needs, requires)) in enumerate(c.context):
        scanned_to = 0
        line_rule = lazy.source.startswith("(?m)^")
        if line_rule and markers is not None:
            _scan_lines(kind, lazy.get(), text, [start for start, _end in markers], spans)
            continue
        anchors = _anchor_spans(anchor, lowered, hits)
        if not anchors:
            continue
        if line_rule:
            _scan_lines(kind, lazy.get(), text, [start for start, _end in anchors], spans)
            continue
        starts = _starts(kind, hits, lowered)
        for a_start, a_end in anchors:
            start = max(scanned_to, a_start - before)
            end = min(n, a_end + after)
            if start >= end:
                continue
            if needs and all(lowered.find(ch, a_end, a_end + 300) < 0 for ch in needs):
                continue
            scanned_to = end
            if requires and all(lowered.find(lit, start, end) < 0 for lit in requires):
                continue  # no match fits in this window (it is not scanned again: scanned_to)
            key = (index, start > 0, text[start - 1 if start else 0 : end])
            found = seen.get(key)
            if found is None:
                found = seen[key] = _window_spans(kind, lazy.get(), text, start, end, starts)
            spans.extend((start + s, start + e, kind) for s, e in found)


def _scan_lines(
    kind: str, regex: re.Pattern[str], text: str, places: list[int], spans: list[Span]
) -> None:
    """A line rule (``(?m)^…``, the ``.pgpass`` line) matches a whole line, which holds one
    of its anchors: each such line is tried once, and only if it has the four colons every
    match has (a log's time stamps wake the anchor on every line). ``places`` are where the
    anchors are, or in a later pass where the markers are: any line without a marker is as it
    was in the pass before, which redacted its match, and a line with no anchor fails the
    rule, whose expression holds the anchor's."""
    taken = 0
    for line_start in sorted({text.rfind("\n", 0, at) + 1 for at in places}):
        if line_start < taken:
            continue
        line_end = text.find("\n", line_start)
        if line_end < 0:
            line_end = len(text)
        if text.count(":", line_start, line_end) < 4:
            continue
        m = regex.match(text, line_start, line_end)
        if m is None:
            continue
        taken = m.end()
        value = m.group("v")
        if _context_value_ok(kind, value, m):
            spans.append((m.start("v"), m.end("v"), kind))


def _window_spans(
    kind: str, regex: re.Pattern[str], text: str, start: int, end: int, starts: list[int] | None
) -> list[tuple[int, int]]:
    group: str | int = "v" if "v" in regex.groupindex else 0
    found: list[tuple[int, int]] = []
    if starts is None:
        matches: Iterator[re.Match[str]] = regex.finditer(text, start, end)
    else:
        matches = _matches_at(regex, text, starts, start, end)
    for m in matches:
        value = m.group(group)
        if value is None:
            continue
        if kind == "cookie":  # each pair judged alone: "theme=dark" stays
            at = m.start(group) - start
            found.extend((at + s, at + e) for s, e in cookie_spans(value))
        elif _context_value_ok(kind, value, m):
            s, e = m.span(group)
            found.append((s - start, e - start))
    return found


def _matches_at(
    regex: re.Pattern[str], text: str, starts: list[int], start: int, end: int
) -> Iterator[re.Match[str]]:
    """``regex.finditer(text, start, end)`` when every match starts at one of ``starts``:
    the leftmost match, then the leftmost one after it, tried at those places alone."""
    # imported here: only a text holding an anchor gets this far, and most prompts a hook
    # scrubs hold none (bisect costs them ~0.3 ms to import)
    from bisect import bisect_left

    taken = start
    for at in starts[bisect_left(starts, start) : bisect_left(starts, end)]:
        if at < taken:
            continue
        m = regex.match(text, at, end)
        if m is not None:
            yield m
            taken = max(m.end(), at + 1)


def _context_value_ok(kind: str, value: str, m: re.Match[str]) -> bool:
    if kind in ("private_key", "slack_webhook", "discord_webhook", "teams_webhook"):
        return True
    if kind in ("kubeconfig", "bootstrap_token"):
        return not is_placeholder(value)
    if kind == "signing_key":
        return not is_placeholder(value) and (randomish(value, min_len=8) or symbol_secret(value))
    if value.startswith(_MARKER) or is_placeholder(value):
        return False
    if kind in ("authorization", "bearer_token", "signature"):
        return not looks_like_code(value) and (randomish(value, min_len=8) or len(value) >= 16)
    if kind == "url_password":
        return value[:1] not in "$<{%*" and not set(value) <= {"*", "x", "X"}
    if kind == "credential":
        return randomish(value.rstrip(".,"), min_len=8) and not looks_like_code(value)
    whole = m.group()
    if kind == "password" and (" is " in whole or " was " in whole or " of " in whole):
        return password_like(value)
    if kind == "password" and (value.isdigit() and len(value) <= 5 and ":" in whole[:40]):
        return False  # "-u 1000:1000" is a uid:gid, not user:password
    return not looks_like_code(value) or (kind == "password" and "machine" in whole)


def scan_cards(
    text: str, c: Compiled, spans: list[Span], markers: list[tuple[int, int]] | None = None
) -> None:
    """Spans for the card numbers of ``text``; with ``markers`` (a later pass), only in the
    stretches that touch a marker or the character before or after it."""
    # A card number lies inside a stretch of digits, spaces and dashes that starts and ends
    # with a digit and holds 13+ characters; the card expression (a repeated group, slow on
    # digit-rich logs) runs only inside such stretches, which gives it the same matches.
    # [0-9] is faster than \\d, which also takes other scripts' digits: only for ASCII text
    runs = (c.card_run_ascii if text.isascii() else c.card_run).get()
    if markers is None:
        for run in runs.finditer(text):
            _cards_in(text, run.start(), run.end(), c, spans)
        return
    # A stretch that touches no marker, nor the characters a card's checks read next to it,
    # read the same in the pass before, which redacted every card it held.
    done_to = 0
    for m_start, m_end in markers:
        lo, hi = max(done_to, m_start - 2), min(len(text), m_end + 2)
        while lo > done_to and _in_stretch(text[lo - 1]):
            lo -= 1
        while hi < len(text) and _in_stretch(text[hi]):
            hi += 1
        if lo >= hi:
            continue
        for run in runs.finditer(text, lo, hi):
            _cards_in(text, run.start(), run.end(), c, spans)
        done_to = hi


def _in_stretch(ch: str) -> bool:
    return ch in " -" or ch.isdigit()


def _cards_in(text: str, lo: int, hi: int, c: Compiled, spans: list[Span]) -> None:
    for m in c.card.get().finditer(text, lo, hi):
        start, end = m.span()
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_+.,/:-"):
            continue  # part of a longer number or token, a version, a date or a path
        if end < len(text) and (
            text[end].isdigit() or (text[end : end + 2][-1:].isdigit() and text[end] in ".,/:-")
        ):
            continue
        if _card_ok(m.group()):
            spans.append((m.start(), m.end(), "card_number"))


def _luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_ok(raw: str) -> bool:
    digits = raw.replace(" ", "").replace("-", "")
    n = len(digits)
    if not 13 <= n <= 19 or not _luhn_ok(digits) or len({c for c in raw if c in " -"}) > 1:
        return False
    d2, d3, d4 = int(digits[:2]), int(digits[:3]), int(digits[:4])
    issuer = (
        (digits[0] == "4" and n in (13, 16, 19))  # Visa
        or (51 <= d2 <= 55 and n == 16)  # Mastercard
        or (2221 <= d4 <= 2720 and n == 16)
        or (d2 in (34, 37) and n == 15)  # American Express
        or ((digits.startswith("6011") or d2 == 65 or 644 <= d3 <= 649) and n >= 16)
        or (3528 <= d4 <= 3589 and n >= 16)  # JCB
        or ((d2 in (36, 38) or 300 <= d3 <= 305) and n == 14)  # Diners
        or (d2 == 62 and n >= 16)  # UnionPay
    )
    if not issuer:
        return False
    if " " in raw or "-" in raw:  # "4111 1111 1111 1111", "3782 822463 10005"
        return all(3 <= len(g) <= 6 for g in re.split(r"[ -]", raw))
    return True
