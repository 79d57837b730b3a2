"""The memory verbs' one implementation: search, read, ls, remember, forget by URI.

Two faces call these: the CLI verbs (``commands/memory.py``, ``commands/forget.py``) and the
MCP server's tools (``ovhooks/mcp/tools.py``). Each function checks its arguments (a
``CommandError`` with exit code 2 for bad ones), talks to the backend it is given, and returns
plain data; wording for people or for a model is the caller's. No Typer and no Rich here: the
MCP server imports this module on its first tool call and must stay light.
"""

from __future__ import annotations

import hashlib
import re
import time

from ovhooks.commands.errors import usage_error, utf8_text
from ovhooks.rules.memory_uri import NAME_DIGEST_CHARS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings

LEVELS = ("abstract", "overview", "full")
# The verbs as the MCP server names its tools (``mcp/tools.py`` describes each); install and
# doctor register and check exactly these, so they are named here, below all three.
TOOL_NAMES = ("search", "read", "list", "remember", "forget")
KINDS = ("preferences", "events")


# Entries `ovhooks ls` shows unless asked for more (a store's own default page).
LS_DEFAULT_LIMIT = 512


def is_skeleton(uri: str) -> bool:
    """Directory summary nodes the server indexes next to real memories."""
    return uri.endswith(("/.abstract.md", "/.overview.md"))


def search_results(found: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten a ``find`` answer into scored hits, best first, without skeleton nodes."""
    hits = []
    for kind, key in (("memory", "memories"), ("resource", "resources"), ("skill", "skills")):
        for item in found.get(key) or []:
            if not isinstance(item, dict) or not isinstance(item.get("uri"), str):
                continue
            if is_skeleton(item["uri"]):
                continue
            score = item.get("score")
            hits.append(
                {
                    "uri": item["uri"],
                    "kind": kind,
                    "score": float(score) if isinstance(score, int | float) else None,
                    "abstract": str(item.get("abstract") or ""),
                }
            )
    hits.sort(key=lambda h: -(h["score"] or 0.0))
    return hits


def slug(text: str, words: int = 8) -> str:
    """A short, path-safe name from the first words of ``text``."""
    tokens = re.findall(r"[A-Za-z0-9]+", text.lower())[:words]
    return "-".join(tokens)[:60].strip("-") or "memory"


def memory_uri(user: str, text: str, *, kind: str, name: str | None, now: float) -> str:
    """Where ``remember`` writes (the server's own memory layout, openviking-api §A.8).

    Without ``name`` the file name is the text's first words plus a hash of the whole text,
    so remembering the same thing twice writes the same file instead of a duplicate.
    """
    base = f"viking://user/{user}/memories"
    # A few words: the URI is shown with every recalled line, and each character costs tokens.
    digest = hashlib.sha256(text.encode()).hexdigest()[:NAME_DIGEST_CHARS]
    stem = slug(name) if name else f"{slug(text, words=5)[:28].strip('-')}-{digest}"
    if kind == "events":
        day = time.strftime("%Y/%m/%d", time.gmtime(now))
        return f"{base}/events/{day}/{stem}.md"
    return f"{base}/preferences/{user}/{stem}.md"


def resolve_user(settings: Settings, backend: Backend) -> str:
    return settings.user or backend.whoami()


def memory_backend(settings: Settings, cwd: str | None = None) -> Backend:
    """The backend for memory verbs: the project peer's (of ``cwd``), as the hooks use it."""
    from ovhooks.commands.common import command_backend, current_peer

    return command_backend(settings, peer=current_peer(settings, cwd))


def ls_entries(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A listing's entries as ``ls`` reports them, without skeleton nodes."""
    return [
        {
            "uri": str(i.get("uri", "")),
            "is_dir": bool(i.get("isDir")),
            "size": i.get("size"),
            "abstract": str(i.get("abstract") or ""),
        }
        for i in items
        if not is_skeleton(str(i.get("uri", "")))
    ]


def _viking_uri(uri: str, what: str) -> str:
    uri = utf8_text(uri, what).strip()
    if not uri.startswith("viking://"):
        raise usage_error(
            f"{what} must be a viking:// URI, not {uri[:80]!r}",
            "take the URI from a search or list result",
        )
    return uri


# --- the verbs ------------------------------------------------------------------------------


def search(
    backend: Backend,
    query: str,
    *,
    limit: int = 10,
    uri: str = "",
    min_score: float | None = None,
    settings: Settings | None = None,
) -> list[dict[str, Any]]:
    """The best hits for ``query`` (``search_results`` shape), at most ``limit``.

    The query leaves the machine with a server backend, so it passes the same scrub as the
    hooks' recall queries (a pasted token is searched for as ``[REDACTED:...]``).
    """
    query = query.strip()
    if not query:
        raise usage_error("the search query is empty", "say what to look for, in plain words")
    from ovhooks.capture.scrub import clean_outbound_head
    from ovhooks.rules.limits import QUERY_MAX_CHARS

    query = clean_outbound_head(query, QUERY_MAX_CHARS, settings)[:QUERY_MAX_CHARS]
    if limit < 1:
        raise usage_error(f"limit {limit} is below 1", "ask for at least one result")
    if uri:
        uri = _viking_uri(uri, "the search scope")
    found = backend.find(query, target_uri=uri, limit=limit, score_threshold=min_score)
    return search_results(found)[:limit]


def read(backend: Backend, uri: str, level: str = "full") -> str:
    """What the memory or resource at ``uri`` says, at ``level``."""
    if level not in LEVELS:
        raise usage_error(f"unknown level {level!r}", "use abstract, overview or full")
    return backend.read(_viking_uri(uri, "the URI to read"), level)


def ls(
    settings: Settings,
    backend: Backend,
    uri: str = "",
    *,
    recursive: bool = False,
    limit: int = LS_DEFAULT_LIMIT,
) -> tuple[str, list[dict[str, Any]], bool]:
    """(the folder listed, its first ``limit`` entries, whether more exist); the user's
    memories when ``uri`` is empty. One entry more than shown is asked for, so a listing cut
    at the limit says so instead of ending as if the folder ended there."""
    if limit < 1:
        raise usage_error(f"limit {limit} is below 1", "ask for at least one entry")
    target = (
        _viking_uri(uri, "the folder to list")
        if uri.strip()
        else f"viking://user/{resolve_user(settings, backend)}/memories"
    )
    entries = ls_entries(backend.ls(target, recursive=recursive, limit=limit + 1))
    return target, entries[:limit], len(entries) > limit


def memory_files(
    settings: Settings, backend: Backend, uri: str = ""
) -> tuple[str, list[dict[str, Any]], bool]:
    """(the folder, every memory file below it, whether that is all of them): a recursive
    listing asked for up to ``LISTING_SCAN_MAX`` entries, so a count can be told truly (a
    store's default listing stops at 512). ``False`` when the store filled the cap."""
    from ovhooks.rules.limits import LISTING_SCAN_MAX

    target = (
        _viking_uri(uri, "the folder to list")
        if uri.strip()
        else f"viking://user/{resolve_user(settings, backend)}/memories"
    )
    raw = backend.ls(target, recursive=True, limit=LISTING_SCAN_MAX)
    files = [e for e in ls_entries(raw) if not e["is_dir"]]
    return target, files, len(raw) < LISTING_SCAN_MAX


def remember(
    settings: Settings,
    backend: Backend,
    text: str,
    *,
    kind: str = "preferences",
    name: str | None = None,
    uri: str | None = None,
) -> dict[str, Any]:
    """Store ``text`` now; returns ``{uri, kind, bytes, scrubbed}``.

    What is remembered is stored (and, with a server, sent): the text, the name and the URI
    slug made from them pass the same scrub as captured turns (``capture.scrub``).
    """
    if kind not in KINDS:
        raise usage_error(f"unknown kind {kind!r}", "use preferences or events")
    text = utf8_text(text, "the text to remember").strip()
    for value, what in ((name, "--name"), (uri, "--uri")):
        if value is not None:
            utf8_text(value, what)
    if not text:
        raise usage_error(
            "nothing to remember: the text is empty",
            "pass the text as an argument, or `-` to read it from stdin",
        )
    from ovhooks.rules.limits import memory_size_problem

    too_large = memory_size_problem(text)
    if too_large:
        raise usage_error(
            f"not remembered: {too_large}",
            "keep the fact itself, in a few sentences; a document belongs in the project",
        )
    from ovhooks.capture.scrub import clean_outbound

    content = clean_outbound(text, settings)
    name = clean_outbound(name, settings) if name else name
    if uri is not None:  # given, even empty: the rule names what is wrong with it
        uri = own_memory(settings, backend, uri, "write")
        if clean_outbound(uri, settings) != uri:
            raise usage_error("cannot write there: the URI holds a secret", OWN_MEMORY_FIX)
    target = uri or memory_uri(
        resolve_user(settings, backend), content, kind=kind, name=name, now=time.time()
    )
    body = content + "\n"
    backend.write(target, body, mode="replace")
    return {
        "uri": target,
        "kind": kind,
        "bytes": len(body.encode()),
        "scrubbed": content != text,
    }


OWN_MEMORY_FIX = (
    "forget and edit take one memory file of yours, viking://user/<you>/memories/... or "
    "viking://user/<you>/peers/<project>/memories/... (take it from search or list)"
)


def own_memory(settings: Settings, backend: Backend, uri: str, verb: str) -> str:
    """``uri`` (``~`` expanded) if it names one memory file of this user's
    (``ovhooks.rules.memory_uri``, the rule the viewer applies too); a usage error naming why not.
    """
    from ovhooks.rules.memory_uri import UriError, parse_asking_who

    utf8_text(uri, f"the URI to {verb}")
    try:
        return parse_asking_who(uri, lambda: resolve_user(settings, backend)).uri
    except UriError as exc:
        raise usage_error(f"cannot {verb}: {exc}", OWN_MEMORY_FIX) from None


def forget_uri(settings: Settings, backend: Backend, uri: str) -> str:
    """Delete the memory file at ``uri``; returns the URI deleted."""
    from ovhooks.transport.errors import BackendError

    uri = own_memory(settings, backend, uri, "forget")
    try:
        backend.delete(uri)
    except BackendError as exc:
        if "directory" in exc.message.lower():  # a folder named like a file: the store knows
            raise usage_error(
                f"cannot forget {uri!r}: a folder, not a memory file", OWN_MEMORY_FIX
            ) from None
        raise
    return uri
