"""The scrubber's context rules and card numbers (see ``scrub`` for the whole picture).

Context rules (``scrub_rules.CONTEXT``) run only in a window around each of their anchors,
found with ``str.find`` on the lower-cased text: a 64 kB text costs a few fast literal
searches per rule, not a scan with each expression. Card numbers must pass Luhn and carry a
real issuer's prefix and length.
"""

from __future__ import annotations

import re

from ovhooks.capture.scrub_values import is_placeholder, looks_like_code, password_like, randomish

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.capture.scrub import Span, _Compiled

_MARKER = "[REDACTED:"


def anchor(hints: str) -> re.Pattern[str] | tuple[str, ...]:
    """Literal anchors are found with ``str.find`` (far faster than an alternation)."""
    if hints.startswith("re:"):
        return re.compile(hints[3:])
    return tuple(hints.split("|"))


def _anchor_spans(anchor: re.Pattern[str] | tuple[str, ...], lowered: str) -> list[tuple[int, int]]:
    if not isinstance(anchor, tuple):
        return [m.span() for m in anchor.finditer(lowered)]
    found: list[tuple[int, int]] = []
    for literal in anchor:
        at = lowered.find(literal)
        while at >= 0:
            found.append((at, at + len(literal)))
            at = lowered.find(literal, at + len(literal))
    if len(anchor) > 1:
        found.sort()
    return found


def window(kind: str, hints: str) -> tuple[int, int, tuple[str, ...]]:
    """How far before and after an anchor a match may reach; characters one of which it needs
    within 300 characters after the anchor (a password in a URL needs its "@")."""
    if kind == "private_key":
        return 60, 41_000, ()
    if kind == "url_password":
        return 40, 400, ("@",)
    if hints.startswith("-u|"):
        return 40, 300, (":", "%")
    if kind == "cookie":
        return 40, 2_100, ()
    return 240, 420, ()


def scan_context(text: str, lowered: str, c: _Compiled, spans: list[Span]) -> None:
    n = len(text)
    for kind, lazy, anchor, (before, after, needs) in c.context:
        scanned_to = 0
        for a_start, a_end in _anchor_spans(anchor, lowered):
            start = max(scanned_to, a_start - before)
            end = min(n, a_end + after)
            if start >= end:
                continue
            if needs and all(lowered.find(ch, a_end, a_end + 300) < 0 for ch in needs):
                continue
            scanned_to = end
            regex = lazy.get()
            group: str | int = "v" if "v" in regex.groupindex else 0
            for m in regex.finditer(text, start, end):
                value = m.group(group)
                if value is not None and _context_value_ok(kind, value, m):
                    s, e = m.span(group)
                    spans.append((s, e, kind))


def _context_value_ok(kind: str, value: str, m: re.Match[str]) -> bool:
    if kind in ("private_key", "slack_webhook", "discord_webhook", "teams_webhook"):
        return True
    if value.startswith(_MARKER) or is_placeholder(value):
        return False
    if kind in ("authorization", "bearer_token", "signature"):
        return not looks_like_code(value) and (randomish(value, min_len=8) or len(value) >= 16)
    if kind == "cookie":
        return "=" in value and randomish(value, min_len=8)
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


def scan_cards(text: str, c: _Compiled, spans: list[Span]) -> None:
    for m in c.card.finditer(text):
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
