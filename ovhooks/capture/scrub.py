"""Secret scrubber: replace credentials with ``[REDACTED:<kind>]`` before anything leaves.

Used on every outbound path (capture, recall queries, ``remember``, import, export) and on
what rests on disk (session state, the log). Detection, on the original text, collects spans:

1. ``<private>…</private>`` spans are removed outright (kind ``private``);
2. candidate tokens (runs of token characters, 15+ long) are matched against ~200 vendor
   prefixes (``scrub_rules.PREFIXED``) and a few prefix-less shapes (Discord, Azure AD,
   Terraform Cloud…); a token with no known shape is redacted only when it has the make-up
   of random data (``scrub_entropy.high_entropy``: entropy is one signal among several, after
   hashes, UUIDs, paths, public ids, public keys and encoded images are set aside);
3. context rules (``scrub_rules.CONTEXT``): private key blocks, passwords in URLs,
   ``Authorization``/``X-API-Key`` headers, bearer tokens, cookies, ``.netrc`` and
   ``.pgpass`` lines, signed-URL signatures, XML settings, the command-line flags people type
   passwords into (``curl -u u:pw``, ``sshpass -p``, ``docker login -p``, ``mysql -pX``…),
   "my password is …" in prose;
4. assignments whose key names a credential (``DB_PASSWORD=…``, ``"SessionToken": "…"``,
   ``client-key-data: …``, ``--api-key x``, ``_authToken=…``, ``Password=…;``): found from
   the keyword (a cheap search) back to its key, so the text is not scanned per identifier;
5. Luhn-valid card numbers; e-mail addresses and phone numbers only when asked.

Placeholders and documentation values (``sk-...``, ``AKIAIOSFODNN7EXAMPLE``, ``<your-token>``,
``${VAR}``, ``changeme``, one-character runs and ``abcdef…`` sequences) are never redacted.
Overlapping spans merge, so a secret is replaced whole. The result is idempotent (a marker
never matches a rule) and never longer than the input except by the markers; both are
property-tested. Counts per kind are returned; nothing here logs or returns a secret.

A replaced span can change how its neighbours read, so a text with secrets is scanned again
after the replacement, until nothing more is found. A later pass re-does only what a marker
can have changed (``_Pass``): anchors and keywords are carried over, context windows met
before are not scanned again, tokens, card stretches and ``.pgpass`` lines are looked at
only near the markers. Its output is the full re-scan's, byte for byte
(``tests/capture/test_scrub_equivalence.py``).

Cost (docs/PRIVACY.md): a hook scrubs only what it sends (``clean_outbound_head``), ~2 ms
for a pasted 64 kB prompt; a whole 64 kB turn in the worker takes 4-7 ms, most of it the
regular-expression engine's scans, which a fresh process compiles only as a text needs them.

Why our own rules and not ``detect-secrets`` (1.5.0): on this project's corpus
(``tests/fixtures/secrets``, see docs/PRIVACY.md for the figures) it misses most vendor
formats and every command-line and config-file shape, flags look-alikes, costs 75-100 ms to
import and ~240 ms on a 66 kB text, and reports values per line rather than spans, so it could
not drive a replacement.
"""

from __future__ import annotations

from ovhooks.capture.scrub_assign import scan_assignments
from ovhooks.capture.scrub_compiled import Span, compiled, marker
from ovhooks.capture.scrub_context import scan_cards, scan_context
from ovhooks.capture.scrub_needles import carried_hits, derive_hits, literal_hits
from ovhooks.capture.scrub_tokens import scan_tokens, token_zones

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

    from ovhooks.capture.scrub_context import Windows
    from ovhooks.capture.scrub_values import LazyRe

_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}

# ---------------------------------------------------------------------------- driver
# (the detectors: scrub_tokens, scrub_context, scrub_assign)


def remove_private(text: str) -> tuple[str, int]:
    """``text`` without its ``<private>…</private>`` spans, and how many there were."""
    counts: dict[str, int] = {}
    text = _private_sub(text, counts)
    return text, counts.get("private", 0)


def _private_sub(text: str, counts: dict[str, int]) -> str:
    if "<private" not in text.lower() and "</private" not in text.lower():
        return text
    c = compiled()
    text, found = c.private.get().subn("", text)
    text = c.private_close.get().sub("", text)
    if found:
        counts["private"] = counts.get("private", 0) + found
    return text


class _Pass:
    """What a pass over a text leaves for the next one over the same text with the pass's
    spans replaced (``edits``: each replaced span and its marker, see ``carried_hits``):
    where the literal anchors were, what each context window gave, whether lower-casing
    went character by character (then anchors can be carried over) and which replaced spans
    held a PEM block's first or last line (``high_entropy`` looks for one 8,000 characters
    back, see ``token_zones``)."""

    __slots__ = ("block_edits", "edits", "hits", "local", "plain_lower", "seen", "verdicts")

    def __init__(self) -> None:
        self.edits: list[tuple[int, int, int, int]] | None = None
        self.block_edits: list[bool] = []
        self.hits: dict[str, list[int]] = {}
        self.seen: Windows = {}
        self.verdicts: dict[str, str] = {}  # an assignment's matched text -> its kind or ""
        self.plain_lower = True
        self.local = False


def _collect(text: str, emails: bool, phones: bool, state: _Pass) -> list[Span]:
    c = compiled()
    lowered = text.lower()
    plain_lower = len(lowered) == len(text)
    if not plain_lower:  # a few non-ASCII letters lower to two characters
        lowered = text.translate(_ASCII_LOWER)
    spans: list[Span] = []
    edits = state.edits
    local = "\u03a3" not in text  # the one letter whose lower case depends on its neighbours
    if edits is not None and local and state.local and plain_lower == state.plain_lower:
        # a later pass: only what is near a marker can read differently (see the helpers)
        hits = carried_hits(state.hits, edits, lowered)  # the needles' occurrences
        placed = [(e[2], e[3]) for e in edits]
        scan_tokens(text, c, spans, token_zones(text, placed, state.block_edits))
        scan_cards(text, c, spans, placed)
        markers: list[tuple[int, int]] | None = placed
    else:
        markers = None
        hits = literal_hits(lowered, c.needles)
        scan_tokens(text, c, spans)
        scan_cards(text, c, spans)
    state.hits = dict(hits)
    derive_hits(hits, lowered, c.derived)
    state.plain_lower = plain_lower
    state.local = local
    scan_context(text, lowered, c, spans, hits, state.seen, markers)
    scan_assignments(text, lowered, c, spans, hits, state.verdicts)
    optional: list[tuple[bool, LazyRe, str]] = [
        (emails and "@" in text, c.email, "email"),
        (phones, c.phone, "phone"),
    ]
    for wanted, regex, kind in optional:
        if wanted:
            spans.extend((m.start(), m.end(), kind) for m in regex.get().finditer(text))
    return spans


# When spans start together, the most specific kind names the marker.
_KIND_RANK = {"credential": 1, "password": 1, "bearer_token": 1, "high_entropy": 2}


def _replace(
    text: str, spans: list[Span], counts: dict[str, int], edits: list[tuple[int, int, int, int]]
) -> str:
    """Overlapping spans merge (the first-starting one names the kind); each becomes a marker.
    ``edits`` gets each replaced span and where its marker is in the result."""
    spans.sort(key=lambda s: (s[0], -s[1], _KIND_RANK.get(s[2], 0)))
    pieces: list[str] = []
    done = 0
    cur_start, cur_end, cur_kind = -1, -1, ""
    merged: list[Span] = []
    for start, end, kind in spans:
        if start < cur_end:
            cur_end = max(cur_end, end)
            continue
        if cur_start >= 0:
            merged.append((cur_start, cur_end, cur_kind))
        cur_start, cur_end, cur_kind = start, end, kind
    if cur_start >= 0:
        merged.append((cur_start, cur_end, cur_kind))
    size = 0
    for start, end, kind in merged:
        if end <= start:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        pieces.append(text[done:start])
        size += start - done
        label = marker(kind)
        pieces.append(label)
        edits.append((start, end, size, size + len(label)))
        size += len(label)
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def scrub(text: str, *, emails: bool = False, phones: bool = False) -> tuple[str, dict[str, int]]:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and the count per kind."""
    counts: dict[str, int] = {}
    if not text:
        return text, counts
    text = _private_sub(text, counts)
    text = _wide_secrets(text, counts, emails, phones)
    # A replaced span can change how its neighbours read (the rest of a token a card number
    # was glued to); repeat until stable. Text without secrets costs one pass, and each
    # further pass only turns secret text into inert markers, so this ends quickly.
    state = _Pass()
    for _ in range(4):
        spans = _collect(text, emails, phones, state)
        if not spans:
            break
        state.edits = []
        before = text
        text = _replace(text, spans, counts, state.edits)
        state.block_edits = [
            _holds_pem_edge(before[start:end]) for start, end, _m_start, _m_end in state.edits
        ]
    return text, counts


# Full-width forms of ASCII (U+FF01-FF5E) read as the same characters to a model and to a
# service that normalizes (NFKC), so a key typed in them is still the key: a campaign's
# full-width "sk-proj-..." was stored and shown as is. Chinese text uses the same block for
# its punctuation (，：（）), so only a run that holds a full-width letter or digit is read
# folded to ASCII, and only a run in which a secret is found is replaced, by its scrub.
_WIDE_LETTER = "[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]"
_FOLD = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
_wide: list[re.Pattern[str]] = []


def _wide_secrets(text: str, counts: dict[str, int], emails: bool, phones: bool) -> str:
    if text.isascii():  # most text, in C: nothing compiled
        return text
    if not _wide:
        import re

        _wide.extend((re.compile(_WIDE_LETTER), re.compile("[!-~\uff01-\uff5e]{12,}")))
    letter, run = _wide
    if letter.search(text) is None:
        return text

    def fold(m: re.Match[str]) -> str:
        if letter.search(m.group()) is None:
            return m.group()
        cleaned, found = scrub(m.group().translate(_FOLD), emails=emails, phones=phones)
        for kind, n in found.items():
            counts[kind] = counts.get(kind, 0) + n
        return cleaned if found else m.group()

    return run.sub(fold, text)


def _holds_pem_edge(replaced: str) -> bool:
    """A PEM block's first or last line (see ``token_zones``)."""
    return "-----BEGIN " in replaced or "-----END " in replaced


def scrub_text(text: str) -> str:
    """Just the scrubbed text: for paths that keep no counts (queries, state, the log)."""
    return scrub(text)[0] if text else text


def clean_outbound(text: str, settings: object | None = None) -> str:
    """The one scrub for text that leaves the machine or rests on disk.

    ``<private>`` spans always go (the user's explicit wish); secrets go unless the user
    turned the scrubber off (``OVHOOKS_SCRUB=0``); e-mails and phones only when asked.
    """
    if not text:
        return text
    if settings is not None and not getattr(settings, "scrub", True):
        return remove_private(text)[0]
    emails = bool(getattr(settings, "scrub_emails", False))
    phones = bool(getattr(settings, "scrub_phones", False))
    return scrub(text, emails=emails, phones=phones)[0]


# How far past the part a caller keeps ``clean_outbound_head`` reads: a secret that starts in
# the kept part is read whole, or as far as any rule reads one (the longest token formats are
# a few hundred characters, ``high_entropy`` takes none over 256, the PEM rule takes a block
# that has no end line).
HEAD_MARGIN = 4096


def clean_outbound_head(text: str, chars: int, settings: object | None = None) -> str:
    """``clean_outbound`` of the start of ``text`` that holds its first ``chars`` characters
    and ``HEAD_MARGIN`` more, cut at the next line end or space: for paths that send only
    the start of a text (recall queries), so the hook's cost does not grow with a pasted
    64 kB prompt. The caller cuts the result to what it sends."""
    cut = chars + HEAD_MARGIN
    if len(text) <= cut:
        return clean_outbound(text, settings)
    ends = [at for at in (text.find("\n", cut), text.find(" ", cut)) if at >= 0]
    end = min(ends) if ends else len(text)
    return clean_outbound(text[: min(end, cut + HEAD_MARGIN)], settings)


def named_query(query: str, settings: object | None = None) -> str:
    """A search query as an answer names it (MCP ``search``, CLI ``search --json``): its
    scrubbed start on one line, ``QUERY_HEAD_CHARS`` at most. The store saw it scrubbed, and
    a pasted 1 MB query must not come back whole."""
    from ovhooks.rules.limits import QUERY_HEAD_CHARS

    flat = " ".join(clean_outbound_head(query, QUERY_HEAD_CHARS, settings).split())
    if len(flat) <= QUERY_HEAD_CHARS:
        return flat
    return flat[: QUERY_HEAD_CHARS - 1].rstrip() + "…"


def clean_json(value: object, settings: object | None = None) -> object:
    """A JSON-shaped value with ``clean_outbound`` applied to every string in it."""
    if isinstance(value, str):
        return clean_outbound(value, settings)
    if isinstance(value, dict):
        return {k: clean_json(v, settings) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v, settings) for v in value]
    return value
