"""Which URIs a memory verb may forget or rewrite: one rule for the CLI, MCP and the viewer.

A memory of yours is a file under one of your memory roots, as ovhooks addresses them:

- ``viking://user/<you>/memories/…``               your own memories (the profile included)
- ``viking://user/<you>/peers/<project>/memories/…`` a project's memories (any of your projects)

(``viking://~/…`` is read as ``viking://user/<you>/…``). ovhooks keeps no memory anywhere
else, so anything else is refused before a store sees it: other users, agent spaces,
resources, sessions, folders, directory summaries (``.abstract.md``), wildcards, and every
way of writing ``..`` or ``/`` that a store or a proxy might decode later (percent-encoding,
double-encoding, backslashes, dots and slashes from other scripts). The URI is parsed, never
searched for a substring: ``viking://resources/x/memories/y.md`` names no memory of yours.
"""

from __future__ import annotations

import unicodedata

from ovhooks.rules.limits import URI_MAX_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

SCHEME = "viking://"
# Unicode categories of characters that hide what a text names: controls, format characters
# (bidi overrides, zero-width joiners) and line or paragraph separators.
HIDING_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp"))
WILDCARDS = frozenset("*?[]{}#")
# Slashes that no normalisation turns into "/", but that read as one.
SLASH_LOOKALIKES = frozenset("\u2044\u2215\u29f8\u2571")
# What a character must not stand for once normalised (NFKC): a separator, a dot, an escape.
MEANINGFUL = frozenset("./\\%")
# A user no URI names (a segment cannot hold a NUL): "whose is it?" asked of no one.
NOBODY = "\x00"
# ``remember`` ends a file name it makes with this many hex digits of the text's hash
# (``…-615d42.md``), so that the same text lands on the same file.
NAME_DIGEST_CHARS = 6
_HEX = frozenset("0123456789abcdef")


def name_digest_start(uri: str) -> int:
    """Where the closing ``-<hash>`` of a file name ``remember`` made starts in ``uri``,
    or -1 when the name has none."""
    stem = uri.removesuffix(".md")
    cut = len(stem) - NAME_DIGEST_CHARS - 1
    if stem == uri or cut <= 0 or stem[cut] != "-":
        return -1
    return cut if set(stem[cut + 1 :]) <= _HEX else -1


class UriError(ValueError):
    """A URI no memory verb may forget or rewrite: ``reason`` (a slug) and ``why`` (words)."""

    def __init__(self, uri: str, reason: str, why: str) -> None:
        shown = uri if len(uri) <= 120 else uri[:119] + "…"
        super().__init__(f"{shown!r} is {why}" if uri else why)
        self.uri = uri
        self.reason = reason
        self.why = why


class MemoryUri:
    """A URI the rule accepted: ``uri`` (``~`` expanded), whose ``peer`` ("" for your own
    memories) and the ``path`` of segments under that memory root."""

    __slots__ = ("path", "peer", "uri", "user")

    def __init__(self, uri: str, user: str, peer: str, path: tuple[str, ...]) -> None:
        self.uri = uri
        self.user = user
        self.peer = peer
        self.path = path


def _characters(uri: str) -> None:
    """Refuse characters that hide what the URI names."""
    for ch in uri:
        category = unicodedata.category(ch)
        if category in HIDING_CATEGORIES:
            raise UriError(uri, "bad_character", "not a memory URI: it holds invisible characters")
        if category == "Cs":  # a lone surrogate: no store can encode it, no file is named so
            raise UriError(
                uri, "bad_character", "not a memory URI: it holds text that is not valid Unicode"
            )
        if ch == "%":
            raise UriError(
                uri,
                "encoded",
                "not accepted: percent-encoding ('%…') never appears in a memory's URI and can "
                "hide '..' or '/'",
            )
        if ch == "\\" or ch in SLASH_LOOKALIKES:
            raise UriError(uri, "backslash", "not a memory URI: it holds a backslash or slash")
        if ch in WILDCARDS:
            raise UriError(
                uri, "wildcard", "a pattern, not a memory: forget and edit take one file's URI"
            )
        if ord(ch) > 127 and MEANINGFUL & set(unicodedata.normalize("NFKC", ch)):
            raise UriError(
                uri, "lookalike", f"not a memory URI: {ch!r} stands for '.' or '/' once normalised"
            )


def _segments(uri: str, rest: str) -> list[str]:
    segments = rest.split("/")
    for n, segment in enumerate(segments):
        if not segment.strip("."):
            if not segment and n == len(segments) - 1:
                raise UriError(uri, "folder", "a folder, not a memory file")
            if not segment:
                raise UriError(uri, "empty_segment", "not a memory URI: it holds '//'")
            raise UriError(uri, "traversal", f"not a memory URI: it holds a {segment!r} segment")
        if ".." in segment:
            raise UriError(uri, "traversal", "not a memory URI: it holds '..'")
    return segments


def _not_a_memory_space(uri: str, segments: list[str], user: str) -> UriError:
    top = segments[0]
    if top == "resources":
        return UriError(uri, "resource", "a resource, not a memory")
    if top == "agent":
        return UriError(
            uri, "agent_space", "in the shared agent space, not a memory of yours (read-only)"
        )
    if top == "session" or (top == "user" and len(segments) > 2 and segments[2] == "sessions"):
        return UriError(uri, "session", "a session's record, not a memory")
    if top == "user" and len(segments) > 1 and segments[1] != user:
        return UriError(uri, "not_yours", f"not a memory of yours (you are user {user!r})")
    return UriError(uri, "not_a_memory", "not under a memory folder of yours")


def parse_memory_uri(raw: str, user: str) -> MemoryUri:
    """``raw`` as a memory file of ``user``'s, or ``UriError`` saying why it is not one."""
    uri = raw.strip()
    if not uri:
        raise UriError("", "empty", "the URI is empty")
    if len(uri) > URI_MAX_CHARS:
        raise UriError(uri, "too_long", f"over {URI_MAX_CHARS:,} characters, not a memory URI")
    _characters(uri)
    if not uri.startswith(SCHEME):
        raise UriError(uri, "not_viking", "not a viking:// URI")
    rest = uri[len(SCHEME) :]
    if rest == "~" or rest.startswith("~/"):
        rest = f"user/{user}" + rest[1:]
    segments = _segments(uri, rest)
    canonical = SCHEME + "/".join(segments)
    if segments[:3] == ["user", user, "memories"]:
        peer, path = "", segments[3:]
    elif segments[:3] == ["user", user, "peers"] and segments[4:5] == ["memories"]:
        peer, path = segments[3], segments[5:]
    else:
        raise _not_a_memory_space(uri, segments, user)
    if not path:
        raise UriError(uri, "folder", "a memory folder, not a memory file")
    leaf = path[-1]
    if leaf.startswith("."):
        raise UriError(uri, "summary", "a folder's summary, not a memory")
    if not leaf.endswith(".md"):
        raise UriError(uri, "folder", "a folder, not a memory file (memory files end in .md)")
    return MemoryUri(canonical, user, peer, tuple(path))


def parse_asking_who(raw: str, whoami: Callable[[], str]) -> MemoryUri:
    """``parse_memory_uri`` that asks ``whoami`` (a server's answer, with the local store an
    attribute) only when the answer decides: a URI refused whoever asks is refused without
    it, so a server that is down cannot hide why ``viking://resources/…`` may not be forgotten.
    """
    try:
        parse_memory_uri(raw, NOBODY)
    except UriError as exc:
        if exc.reason != "not_yours":
            raise
    return parse_memory_uri(raw, whoami())
