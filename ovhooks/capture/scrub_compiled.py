"""What every part of the scrubber shares (see ``scrub`` for the whole picture): the span
type, the marker, and the expressions compiled once per process (``compiled``).

The detectors (``scrub_tokens``, ``scrub_context``, ``scrub_assign``) take these from here
and the driver (``scrub``) puts them together; nothing here imports a detector or the driver,
so the scrubber's modules form no circle.
"""

from __future__ import annotations

import re

from ovhooks.capture.scrub_anchors import ANCHOR_STARTS, ASSIGN_SRC, KEYWORDS, anchor, window
from ovhooks.capture.scrub_values import LazyRe

Span = tuple[int, int, str]

MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    return f"{MARKER_PREFIX}{kind}]"


# a run of token characters (not starting with "/"), and up to three "=" of base64 padding
_CANDIDATE_BODY = r"[A-Za-z0-9_+.~-][A-Za-z0-9_+/.~-]{%d,}={0,3}"
_CARD_SRC = r"\d(?:[ -]?\d){12,18}"
_CARD_RUN_SRC = r"\d[\d -]{11,}\d"
_EMAIL_SRC = (
    r"(?<![\w.+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}"
    r"(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}(?![\w-])"
)
_PHONE_SRC = (
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,5}"
    r"(?![\w])|(?<![\w+])\+\d{9,15}(?!\w)"
)


class Compiled:
    """Every expression, compiled once per process on first use (import compiles nothing)."""

    def __init__(self) -> None:
        from ovhooks.capture import scrub_rules as rules

        self.candidate = re.compile(_CANDIDATE_BODY % (rules.PREFIXED_MIN_LEN - 1))
        # prefixes by their first two characters, longest first: a dict lookup and a few
        # startswith calls per token, instead of compiling a 200-way alternation
        self.prefixes: dict[str, tuple[str, ...]] = {}
        for p in sorted({p for p, _k, _b in rules.PREFIXED}, key=len, reverse=True):
            self.prefixes[p[:2]] = (*self.prefixes.get(p[:2], ()), p)
        # Bodies and context expressions compile when first needed: a prompt with no token
        # that starts like a credential compiles none of the ~250 of them (and builds none
        # of the prefixes' entries, see ``prefix_rules``).
        self._prefix_sources: dict[str, list[tuple[str, str]]] = {}
        for prefix, kind, body in rules.PREFIXED:
            self._prefix_sources.setdefault(prefix, []).append((kind, body))
        self._prefix_rules: dict[str, list[tuple[str, LazyRe, int]]] = {}
        self.shaped = [(kind, needle, LazyRe(src)) for kind, needle, src in rules.SHAPED]
        # a shape's telltale substring, after its lead character where it has one
        self.shaped_needle = LazyRe(
            "|".join(
                f"^(?=[{rules.SHAPED_LEADS[k]}]).*{re.escape(n)}"
                if k in rules.SHAPED_LEADS
                else re.escape(n)
                for k, n, _s in rules.SHAPED
            )
        )
        self.context = [
            (
                kind,
                LazyRe(src, re.DOTALL if kind == "private_key" else 0),
                anchor(hints),
                window(kind, hints),
            )
            for kind, src, hints in rules.CONTEXT
        ]
        # Every literal anchor and assignment keyword is searched for once per pass ("needles");
        # an anchor that holds a needle (``secret: `` holds ``secret``) is derived from its
        # occurrences instead: 27 fewer searches of the whole text.
        anchors = [a for _k, _r, a, _w in self.context if isinstance(a, tuple)]
        literals = list(dict.fromkeys(lit for a in anchors for lit in a if lit not in KEYWORDS))
        # a base is a keyword, or a literal that holds no keyword and no other literal (so it
        # is searched for itself)
        plain = [
            o
            for o in literals
            if not any(w in o for w in KEYWORDS) and not any(p != o and p in o for p in literals)
        ]
        self.derived: dict[str, tuple[str, int]] = {}
        for lit in literals:
            base = next((w for w in KEYWORDS if w in lit), None)
            base = base or next((o for o in plain if o != lit and o in lit), None)
            if base is not None:
                self.derived[lit] = (base, lit.index(base))
        self.needles = KEYWORDS + tuple(lit for lit in literals if lit not in self.derived)
        # and where the expression anchors that say so start ("pw" of "pw is …")
        starts = {lit for hint_starts in ANCHOR_STARTS.values() for lit in hint_starts}
        self.needles += tuple(sorted(starts - set(self.needles) - set(self.derived)))
        self.word_char = re.compile(r"\w")
        self.digit = re.compile("[0-9]")
        # compiled when first needed, like the rules: a short prompt needs few of them
        self.assign = LazyRe(ASSIGN_SRC)
        self.card = LazyRe(_CARD_SRC)
        self.card_run = LazyRe(_CARD_RUN_SRC)
        self.card_run_ascii = LazyRe(r"[0-9][0-9 -]{11,}[0-9]")
        self.email = LazyRe(_EMAIL_SRC)
        self.phone = LazyRe(_PHONE_SRC)
        self.private = LazyRe(
            r"<private\b[^<>]*>.*?(?:</private\s*>|\Z)", re.IGNORECASE | re.DOTALL
        )
        self.private_close = LazyRe(r"</private\s*>", re.IGNORECASE)

    def prefix_rules(self, prefix: str) -> list[tuple[str, LazyRe, int]]:
        """``(kind, prefix and body expression, prefix length)`` for each format of ``prefix``."""
        rules = self._prefix_rules.get(prefix)
        if rules is None:
            rules = self._prefix_rules[prefix] = [
                (kind, LazyRe(re.escape(prefix) + body), len(prefix))
                for kind, body in self._prefix_sources[prefix]
            ]
        return rules


_compiled: list[Compiled] = []


def compiled() -> Compiled:
    """The process's one ``Compiled``, made on first use."""
    if not _compiled:
        _compiled.append(Compiled())
    return _compiled[0]
