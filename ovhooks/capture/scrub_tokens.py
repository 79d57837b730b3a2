"""The scrubber's candidate tokens (see ``scrub`` for the whole picture).

A candidate is a run of token characters as long as the shortest vendor format or longer
(``PREFIXED_MIN_LEN``; shapes and random data need more). It is a credential when it starts
with a known vendor prefix and its body matches that vendor's format
(``scrub_rules.PREFIXED``), when it has a known prefix-less shape (``scrub_rules.SHAPED``),
or, with no known shape, when it has the make-up of random data
(``scrub_entropy.high_entropy``). A path's segments get the shape checks too. Cheap tests
settle most tokens before those checks (``_judge_all``).
"""

from __future__ import annotations

from ovhooks.capture.scrub_entropy import high_entropy
from ovhooks.capture.scrub_rules import PREFIXED_MIN_LEN, SHAPED_MIN_LEN
from ovhooks.capture.scrub_values import (
    PUBLIC_PREFIXES,
    body_is_placeholder,
    is_placeholder,
    randomish,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

    from ovhooks.capture.scrub_compiled import Compiled, Span
    from ovhooks.capture.scrub_values import LazyRe


def scan_tokens(
    text: str, c: Compiled, spans: list[Span], zones: list[tuple[int, int]] | None = None
) -> None:
    """Spans for the candidate tokens of ``text``; with ``zones``, only for the tokens that
    touch a zone (see ``token_zones``)."""
    if zones is None:
        _judge_all(c.candidate.finditer(text), text, c, spans)
        return
    done_to = 0
    for zone_start, hi in zones:
        # restart where the whole-text scan is between tokens: after a character no token
        # holds (then no token straddles it), or where the previous zone's last token ended
        lo = zone_start
        while lo > done_to and text[lo - 1] in _TOKEN_CHARS:
            lo -= 1
        # and stop where the whole-text scan is between tokens again after the zone: a zone
        # with no candidate in it then costs its own length, not the rest of the text
        # (searching on to the next candidate made a text of many small zones quadratic:
        # 200 KB of repeated "x-api-key: " took an MCP search 42 s)
        end = min(hi, len(text))
        while end < len(text) and text[end] in _TOKEN_CHARS:
            end += 1
        found = []
        for m in c.candidate.finditer(text, max(lo, done_to), end):
            if m.start() >= hi:
                break
            found.append(m)
            done_to = m.end()
        _judge_all(iter(found), text, c, spans)


def _judge_all(matches: Iterator[re.Match[str]], text: str, c: Compiled, spans: list[Span]) -> None:
    """``_judge`` each token but those that cheap tests settle (most of them): a token with
    no known prefix is a shape only if it holds one's telltale and is as long as the
    shortest (``SHAPED_MIN_LEN``), and random data only if ``_could_be_random``; a path's
    segments are judged for prefixes and shapes too."""
    prefixes = c.prefixes
    for m in matches:
        token = m.group()
        if not token.startswith(prefixes.get(token[:2], ())):
            if "/" not in token and (len(token) < 20 or not token.strip(_HEX_CHARS)):
                continue  # too short for anything but a prefix, or hex (no shape is)
            if _nothing_to_find(token, c):
                continue
        _judge(token, m.start(), text, c, spans)


def _nothing_to_find(token: str, c: Compiled) -> bool:
    """For a token with no known prefix: whether ``_judge`` surely adds no span for it."""
    if _has_telltale(token, c):
        return False
    if "/" in token:
        for segment in token.split("/"):
            if len(segment) >= PREFIXED_MIN_LEN and _may_be_shaped(segment, c):
                return False
    return not _could_be_random(token.rstrip("."), c)


def _may_be_shaped(token: str, c: Compiled) -> bool:
    """A known prefix, or a shape's telltale (``_has_telltale``)."""
    return token.startswith(c.prefixes.get(token[:2], ())) or _has_telltale(token, c)


def _has_telltale(token: str, c: Compiled) -> bool:
    """As long as a shape (``SHAPED_MIN_LEN``, the shortest) and holding one's telltale."""
    return len(token) >= SHAPED_MIN_LEN and c.shaped_needle.get().search(token) is not None


def _could_be_random(token: str, c: Compiled) -> bool:
    """False where ``high_entropy`` surely says no: under 20 characters, no digit (its class
    test needs one), hexadecimal, a public id's prefix, or a path of lower-case words."""
    if len(token) < 20 or not token.strip(_HEX_CHARS) or c.digit.search(token) is None:
        return False
    if token.startswith(PUBLIC_PREFIXES):
        return False
    path = "/" in token and "+" not in token and not token.endswith("=")
    return not (path and not token.strip(_WORDY_PATH_CHARS))


def token_zones(
    text: str, markers: list[tuple[int, int]], block_edits: list[bool]
) -> list[tuple[int, int]]:
    """Where, after the spans of a pass became ``markers`` (their places in the new text),
    a token can read differently: a token touching a marker, or one that starts less than
    64 characters after it (``high_entropy`` reads the 64 characters before a token). And
    ``high_entropy`` looks 8,000 characters back for a PEM public block's first line: a
    marker can move such a line out of (or into) that reach of a token after it only when
    the line is less than 8,000 characters before the marker, and a replaced span that held
    a first or last line (``block_edits``) can change any token up to 8,000 after it. Anywhere
    else a token and what it reads are as they were in the pass before, which redacted all
    it found in them, so it finds nothing there now."""
    zones = []
    for (start, end), held_edge in zip(markers, block_edits, strict=True):
        far = held_edge or text.find("-----BEGIN ", max(0, start - 8_000), start) >= 0
        zones.append((start, end + (8_000 if far else 64)))
    return zones


_HEX_CHARS = "0123456789abcdefABCDEF-"
# a path made of these has only "wordy" segments (``high_entropy`` sets such a path aside)
_WORDY_PATH_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._-/"
# what a candidate token is made of (``scrub._CANDIDATE_BODY``: the body class and trailing "=")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/.~-=")


def _judge(token: str, start: int, text: str, c: Compiled, spans: list[Span]) -> None:
    if _known_shape(token, start, c, spans):
        return
    if "/" in token:
        # a path or URL: a credential may be one of its segments (".../bot<token>/x",
        # a memory file named after a token); segments get the shape checks only
        offset = 0
        for segment in token.split("/"):
            if len(segment) >= PREFIXED_MIN_LEN:  # no format is shorter
                _known_shape(segment, start + offset, c, spans)
            offset += len(segment) + 1
    trimmed = token.rstrip(".")
    if len(trimmed) >= 20 and high_entropy(trimmed, text, start):
        spans.append((start, start + len(trimmed), "high_entropy"))


def _known_shape(token: str, start: int, c: Compiled, spans: list[Span]) -> bool:
    """Whether ``token`` starts with a known prefix or has a known shape (then it is handled:
    a span is added for a credential, none for a prefix followed by filler)."""
    for prefix in c.prefixes.get(token[:2], ()):
        if token.startswith(prefix):
            verdict = _prefixed(token, c.prefix_rules(prefix))
            if verdict is not None:
                kind, end = verdict
                if kind:
                    spans.append((start, start + end, kind))
                return True
            break  # only the longest prefix counts
    if not _has_telltale(token, c):
        return False
    shaped = _shaped(token, c)
    if shaped is not None:
        spans.append((start, start + shaped[1], shaped[0]))
        return True
    return False


def _prefixed(token: str, entries: list[tuple[str, LazyRe, int]]) -> tuple[str, int] | None:
    """``(kind, end)`` for a hit, ``("", 0)`` for filler after a prefix, ``None`` if no match."""
    for kind, regex, plen in entries:
        bm = regex.get().match(token)
        if bm is None:
            continue
        end = bm.end()
        if end < len(token) and token[end].isalnum():
            continue
        body = token[plen:end]
        if body_is_placeholder(body) or is_placeholder(token[:end]):
            return "", 0
        if plen <= 3 and not randomish(body, min_len=8) and kind != "jwt":
            continue
        return kind, end
    return None


def _shaped(token: str, c: Compiled) -> tuple[str, int] | None:
    for kind, needle, regex in c.shaped:
        if needle not in token:
            continue
        sm = regex.get().match(token)
        ended = sm is not None and (sm.end() == len(token) or not token[sm.end()].isalnum())
        if sm is not None and ended and not body_is_placeholder(sm.group()):
            return kind, sm.end()
    return None
