"""Memories as the viewer lists them: by scope and category, a page at a time, on either store.

Scopes: ``user`` (the user's own memories: profile, preferences, entities, events…),
``project`` (this project's peer memories), ``other`` (other projects' peer memories).
The local store is paged in SQL (100,000 memories stay fast: one indexed count, one
``LIMIT``/``OFFSET`` read of the page); an OpenViking server is listed through ``ls`` under
the user's memory folders and paged here (its listing is capped at ``LISTING_SCAN_MAX``; a
listing that reaches the cap is counted as "at least", never as the total).

A row is read once into a ``Memory``: an ``updated`` time that is not a time (``'x'``,
``1e308``, ``NaN``) is ``None`` (``null`` in the JSON API, "—" on a page) and a text stored
as a BLOB is decoded, so one damaged row never fails the list or a memory's page.
"""

from __future__ import annotations

from ovhooks.rules.limits import LISTING_SCAN_MAX
from ovhooks.settings.readback import moment, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.backend.local import LocalBackend

SCOPES = ("user", "project", "other")
PAGE_SIZE = 50
ABSTRACT_CHARS = 240
CATEGORY_MAX_CHARS = 100  # a category is one word ("preferences"); no filter is longer


class Memory:
    """One row of the list."""

    __slots__ = ("abstract", "category", "peer", "source", "updated", "uri")

    def __init__(
        self,
        uri: str,
        category: str,
        abstract: str,
        peer: str,
        updated: float | None,
        source: str,
    ) -> None:
        self.uri = uri
        self.category = category
        self.abstract = abstract
        self.peer = peer
        self.updated = updated
        self.source = source

    def as_json(self) -> dict[str, Any]:
        return {s: getattr(self, s) for s in self.__slots__}


class Page:
    """One page of the list; ``total`` is every memory the filter matches (a lower bound when
    ``complete`` is False: a server's listing reached ``LISTING_SCAN_MAX``)."""

    __slots__ = ("categories", "complete", "items", "number", "pages", "total")

    def __init__(
        self,
        items: list[Memory],
        total: int,
        number: int,
        categories: list[str],
        complete: bool = True,
    ) -> None:
        self.items = items
        self.total = total
        self.number = number
        self.pages = max(1, -(-total // PAGE_SIZE))
        self.categories = categories
        self.complete = complete


def filter_problem(scope: object, category: object) -> str | None:
    """Why ``scope`` and ``category`` (as a request gave them) are not a filter of the list,
    or None. The one check for the list and bulk forget: a filter the listing does not know
    must never fall through to "every memory"."""
    if not isinstance(scope, str) or scope not in ("", *SCOPES):
        return f"unknown scope {scope!r} (the scopes are {', '.join(SCOPES)})"
    if not isinstance(category, str) or len(category) > CATEGORY_MAX_CHARS:
        return f"unknown category {category!r}"
    return None


def scope_of(uri: str, peer: str) -> str:
    """``user``, ``project`` or ``other`` for a memory URI, seen from project ``peer``."""
    _head, sep, rest = uri.partition("/peers/")
    if not sep:
        return "user"
    return "project" if rest.split("/", 1)[0] == peer else "other"


def category_of(uri: str) -> str:
    from ovhooks.recall.rank import category_of as rank_category

    return rank_category(uri)


def list_page(
    backend: Backend, peer: str, scope: str, category: str, number: int, user: str
) -> Page:
    from ovhooks.backend.local import LocalBackend

    if isinstance(backend, LocalBackend):
        return _local_page(backend, peer, scope, category, number)
    return _server_page(backend, peer, scope, category, number, user)


def _local_page(backend: LocalBackend, peer: str, scope: str, category: str, number: int) -> Page:
    from ovhooks.backend.local.schema import ensure_listing_index

    con = backend.db()
    ensure_listing_index(con)
    where = ["owner = ?"]
    args: list[Any] = [backend.user]
    if scope == "user":
        where.append("peer = ''")
    elif scope == "project":
        where.append("peer = ?")
        args.append(peer)
    elif scope == "other":
        where.append("peer NOT IN ('', ?)")
        args.append(peer)
    scoped = " AND ".join(where)
    categories = [
        str(r[0])
        for r in con.execute(
            f"SELECT DISTINCT category FROM memories INDEXED BY memories_by_scope WHERE {scoped}",
            args,
        )
    ]
    if category:
        where.append("category = ?")
        args.append(category)
    clause = " AND ".join(where)
    (total,) = con.execute(
        f"SELECT COUNT(*) FROM memories INDEXED BY memories_by_scope WHERE {clause}", args
    ).fetchone()
    number = max(1, min(number, max(1, -(-total // PAGE_SIZE))))
    # Newest first by rowid: without a category the rowid walk meets the page's rows at once
    # (the index would need a sort across peers); with one, the index walk does.
    source = "memories INDEXED BY memories_by_scope" if category else "memories NOT INDEXED"
    rows = con.execute(
        f"SELECT uri, category, abstract, peer, updated_at, source FROM {source} WHERE {clause}"
        " ORDER BY id DESC LIMIT ? OFFSET ?",
        [*args, PAGE_SIZE, (number - 1) * PAGE_SIZE],
    ).fetchall()
    items = [
        Memory(text(r[0]), text(r[1]), text(r[2]), text(r[3]), moment(r[4]), text(r[5]))
        for r in rows
    ]
    return Page(items, int(total), number, sorted(categories))


def _server_page(
    backend: Backend, peer: str, scope: str, category: str, number: int, user: str
) -> Page:
    roots = []
    if scope in ("user", "all", ""):
        roots.append(f"viking://user/{user}/memories")
    if scope in ("project", "all", ""):
        roots.append(f"viking://user/{user}/peers/{peer}/memories")
    if scope in ("other", "all", ""):
        roots.append(f"viking://user/{user}/peers")
    found: dict[str, Memory] = {}
    complete = True
    from ovhooks.transport.errors import BackendError

    for root in roots:
        try:
            entries = backend.ls(root, recursive=True, limit=LISTING_SCAN_MAX)
        except BackendError as exc:
            if exc.not_found:
                continue
            raise
        complete = complete and len(entries) < LISTING_SCAN_MAX
        for entry in entries:
            memory = _server_memory(entry, peer)
            if memory is not None and (scope in ("all", "") or scope_of(memory.uri, peer) == scope):
                found[memory.uri] = memory
    items = sorted(found.values(), key=lambda m: (-(m.updated or 0.0), m.uri))
    categories = sorted({m.category for m in items})
    if category:
        items = [m for m in items if m.category == category]
    total = len(items)
    number = max(1, min(number, max(1, -(-total // PAGE_SIZE))))
    start = (number - 1) * PAGE_SIZE
    shown = items[start : start + PAGE_SIZE]
    for memory in shown:
        if not memory.abstract:
            # The server summarises a new file later: until then the list shows its start.
            memory.abstract = readable_line(backend, memory.uri, "", "full")
    return Page(shown, total, number, categories, complete)


def _server_memory(entry: Any, peer: str) -> Memory | None:
    if not isinstance(entry, dict) or entry.get("isDir"):
        return None
    uri = entry.get("uri")
    if not isinstance(uri, str) or "/memories/" not in uri or not uri.endswith(".md"):
        return None
    if uri.endswith(("/.abstract.md", "/.overview.md")):
        return None
    _head, sep, rest = uri.partition("/peers/")
    owner_peer = rest.split("/", 1)[0] if sep else ""
    return Memory(
        uri,
        category_of(uri),
        str(entry.get("abstract") or ""),
        owner_peer,
        _mod_time(entry.get("modTime")),
        "",
    )


def _mod_time(raw: object) -> float | None:
    if isinstance(raw, str) and raw:
        from datetime import datetime

        try:
            return moment(datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp())
        except ValueError:
            return None
    return moment(raw)


def readable_line(backend: Backend, uri: str, text: str, level: str = "abstract") -> str:
    """What a row of the viewer says for ``uri``: the start of ``text``, else of what the
    store gives at ``level``, else "(text unavailable: why)"; never nothing."""
    from ovhooks.transport.errors import BackendError

    if not text.strip():
        try:
            text = backend.read(uri, level)
        except BackendError as exc:
            why = "no such memory now (forgotten?)" if exc.not_found else exc.message
            return f"(text unavailable: {why[:160]})"
    flat = " ".join(text.split())
    return flat[:ABSTRACT_CHARS] if flat else "(text unavailable: the store holds no text for it)"


def provenance(backend: Backend, uri: str) -> dict[str, str]:
    """Where a memory came from: the session (and commit) that produced it, or an explicit
    write, as far as the store records it."""
    from ovhooks.backend.local import LocalBackend

    if not isinstance(backend, LocalBackend):
        return {}
    row = (
        backend.db()
        .execute("SELECT source, tags, created_at, updated_at FROM memories WHERE uri = ?", (uri,))
        .fetchone()
    )
    if row is None:
        return {}
    source, tags, created, updated = row
    facts = dict(part.partition("=")[::2] for part in text(tags).split(",") if "=" in part)
    out = {"created": _iso(created), "updated": _iso(updated)}
    if source == "write":
        out["source"] = "written explicitly (remember, the viewer or an import)"
    elif source:
        out["source"] = "extracted when a session was committed"
        out["session"] = text(source)
        out.update(_origin_turn(backend, text(source), uri))
    if facts.get("memory_type"):
        out["type"] = facts["memory_type"]
    return out


def _origin_turn(backend: LocalBackend, session_id: str, uri: str) -> dict[str, str]:
    """The user turn a commit extracted the memory from, and that commit's archive: the
    archived message whose text holds the memory's opening words (extraction keeps the user's
    own sentence)."""
    import json

    row = backend.db().execute("SELECT content FROM memories WHERE uri = ?", (uri,)).fetchone()
    first = text(row[0] if row else "").strip().splitlines()
    snippet = first[0].strip()[:60] if first else ""
    if len(snippet) < 8:
        return {}
    needle = json.dumps(snippet, ensure_ascii=False)[1:-1]  # as the parts are stored
    found = (
        backend.db()
        .execute(
            "SELECT seq, archive_no FROM messages WHERE session_id = ? AND role = 'user'"
            " AND instr(parts, ?) > 0 ORDER BY seq LIMIT 1",
            (session_id, needle),
        )
        .fetchone()
    )
    if found is None:
        return {}
    seq, archive = found
    out = {"turn": f"message {int(seq) + 1} of the session"}
    if archive is not None:
        out["commit"] = backend.archive_uri(session_id, int(archive))
    return out


def _iso(value: object) -> str:
    import time

    at = moment(value)
    return "—" if at is None else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))
