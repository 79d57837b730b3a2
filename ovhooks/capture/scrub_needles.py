"""Where the scrubber's needles are: every occurrence of each literal it searches for (the
assignment keywords and the context rules' literal anchors) in the lower-cased text.

A 64 kB text costs one search per needle, about 45 µs each for the short ones (48 needles,
2.2 ms on the project's 2-core machine); with ``pyahocorasick`` installed, one Aho-Corasick
pass finds them all (1.0-1.3 ms less per 64 kB turn). It is used for texts over
``AUTOMATON_MIN_CHARS`` only: its import and build (0.6 ms) cost more than they save on the
short texts a hook scrubs (a prompt, the start of a query). Both give the same lists, in
the same order (tests/capture/test_scrub_equivalence.py runs both).

A later pass over the same text with some spans replaced does not search again: the
occurrences clear of every replaced span are carried over (``carried_hits``).
"""

from __future__ import annotations

AUTOMATON_MIN_CHARS = 16_384

# the automaton, built on first use in a process (None: pyahocorasick is not installed)
_automata: dict[tuple[str, ...], object] = {}


def literal_hits(lowered: str, literals: tuple[str, ...]) -> dict[str, list[int]]:
    """Every occurrence (overlapping ones too) of each literal in ``lowered``, in order."""
    if len(lowered) >= AUTOMATON_MIN_CHARS:
        automaton = _automaton(literals)
        if automaton is not None:
            return _automaton_hits(automaton, lowered, literals)
    return _find_hits(lowered, literals)


def _find_hits(lowered: str, literals: tuple[str, ...]) -> dict[str, list[int]]:
    hits: dict[str, list[int]] = {}
    for literal in literals:
        found = []
        at = lowered.find(literal)
        while at >= 0:
            found.append(at)
            at = lowered.find(literal, at + 1)
        hits[literal] = found
    return hits


def _automaton(literals: tuple[str, ...]) -> object | None:
    if literals not in _automata:
        try:
            import ahocorasick
        except ImportError:  # an install without it (--no-deps): the searches above
            _automata[literals] = None
            return None
        automaton = ahocorasick.Automaton()
        for literal in literals:
            # each hit reports where the literal ends: keep what gives its start
            automaton.add_word(literal, (literal, len(literal) - 1))
        automaton.make_automaton()
        _automata[literals] = automaton
    return _automata[literals]


def _automaton_hits(
    automaton: object, lowered: str, literals: tuple[str, ...]
) -> dict[str, list[int]]:
    hits: dict[str, list[int]] = {literal: [] for literal in literals}
    # every occurrence, overlapping ones too, by where it ends: for one literal that is the
    # order of where it starts
    for end, (literal, back) in automaton.iter(lowered):  # type: ignore[attr-defined]
        hits[literal].append(end - back)
    return hits


def derive_hits(
    hits: dict[str, list[int]], lowered: str, derived: dict[str, tuple[str, int]]
) -> None:
    """Add the occurrences of each derived literal: those of the needle it holds (at its
    offset in the literal) where the whole literal is."""
    for literal, (base, offset) in derived.items():
        hits[literal] = [
            at - offset
            for at in hits[base]
            if at >= offset and lowered.startswith(literal, at - offset)
        ]


def carried_hits(
    hits: dict[str, list[int]], edits: list[tuple[int, int, int, int]], lowered: str
) -> dict[str, list[int]]:
    """``hits`` of the text before a pass, moved to the text after it.

    ``edits`` are the replaced spans, ``(start, end)`` before and ``(start, end)`` of the
    marker after, in order. An occurrence clear of every replaced span is still there,
    shifted; an occurrence that overlaps a marker is new and is searched for around the
    markers only. (Valid when lower-casing is done character by character, which the caller
    checks: no capital sigma, whose lower case depends on its neighbours.)
    """
    moved: dict[str, list[int]] = {}
    # the text around each marker, where a literal can be new: one slice, then a cheap
    # membership test per literal before the exact search
    longest = max(map(len, hits), default=1)
    regions = [lowered[max(0, e[2] - longest + 1) : e[3] + longest - 1] for e in edits]
    for literal, starts in hits.items():
        size = len(literal)
        out: list[int] = []
        j = 0
        shift = 0
        for at in starts:
            while j < len(edits) and edits[j][1] <= at:
                shift = edits[j][3] - edits[j][1]
                j += 1
            if j < len(edits) and edits[j][0] < at + size:
                continue  # overlapped a replaced span
            out.append(at + shift)
        fresh = False
        for (_s, _e, m_start, m_end), region in zip(edits, regions, strict=True):
            if literal not in region:
                continue
            lo, hi = max(0, m_start - size + 1), m_end + size - 1
            at = lowered.find(literal, lo, hi)
            while at >= 0:
                out.append(at)
                fresh = True
                at = lowered.find(literal, at + 1, hi)
        if fresh:
            out = sorted(set(out))
        moved[literal] = out
    return moved
