"""Memory files of the local store: promotion of extracted candidates (with near-duplicate
merging), explicit writes and deletes, and the profile file."""

from __future__ import annotations

import _sqlite3 as sqlite3  # not the sqlite3 package: see schema.py
import os
import time

from ovhooks.backend.local.schema import (
    Transaction,
    db_error,
    first_line,
    invalid,
    not_found,
    scope_token,
)
from ovhooks.lexical.text import fts_or_query, term_string
from ovhooks.transport.errors import LOCAL_STORE, BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.backend.base import JSON
    from ovhooks.backend.local.extraction import Candidate
    from ovhooks.backend.local.store import LocalStore

_MAX_QUERY_TERMS = 10
_DEDUP_OVERLAP = 0.75


def promote(
    store: LocalStore,
    con: sqlite3.Connection,
    candidate: Candidate,
    peer: str,
    session_id: str,
    now: float,
) -> str:
    """Store one candidate: ``added``, ``merged`` (near-duplicate updated) or ``duplicate``."""
    from ovhooks.lexical.text import normalise

    peer = peer if candidate.project else ""
    norm = normalise(candidate.text)
    if not norm:
        return "duplicate"
    same = con.execute(
        "SELECT id FROM memories WHERE owner = ? AND norm = ?", (store.user, norm)
    ).fetchone()
    if same is not None:
        con.execute("UPDATE memories SET updated_at = ? WHERE id = ?", (now, same[0]))
        return "duplicate"
    terms = term_string(candidate.text)
    near = near_duplicate(store, con, terms, peer)
    if near is not None:
        update_memory(con, near, candidate.text, now, lead=candidate.lead)
        return "merged"
    uri = new_memory_uri(store, con, candidate, peer, norm, now)
    insert_memory(
        store,
        con,
        uri=uri,
        peer=peer,
        category=candidate.category,
        content=candidate.text,
        tags=f"memory_type={candidate.category},source=commit,session={session_id}",
        source=session_id,
        now=now,
        lead=candidate.lead,
    )
    return "added"


def near_duplicate(store: LocalStore, con: sqlite3.Connection, terms: str, peer: str) -> int | None:
    """The id of a memory in the same scope sharing most terms with ``terms``, if any."""
    mine = set(terms.split())
    if not mine:
        return None
    scope = scope_token(store.user, peer)
    chosen = list(mine)[:_MAX_QUERY_TERMS]
    rows = con.execute(
        "SELECT m.id, m.terms FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid"
        " WHERE memory_fts MATCH ? AND +m.owner = ? AND +m.peer = ? ORDER BY rank LIMIT 5",
        (f'scope : "{scope}" AND terms : ({fts_or_query(chosen)})', store.user, peer),
    ).fetchall()
    for memory_id, other_terms in rows:
        theirs = set(other_terms.split())
        if not theirs:
            continue
        shared = len(mine & theirs)
        jaccard = shared / len(mine | theirs)
        # Same statement, or one restating the other with a few more words. Word order is
        # lost here, so "tabs over spaces" vs "spaces over tabs for YAML" must not pass:
        # containment needs nearly every term of the smaller one.
        contained = shared / min(len(mine), len(theirs))
        if jaccard >= _DEDUP_OVERLAP or (contained >= 0.9 and jaccard >= 0.5):
            return int(memory_id)
    return None


SLUG_CHARS = 28


def new_memory_uri(
    store: LocalStore,
    con: sqlite3.Connection,
    candidate: Candidate,
    peer: str,
    norm: str,
    now: float,
) -> str:
    import zlib

    words = norm.split()
    # The name is shown with every recalled line (a URI costs tokens on each injection): a
    # few words say what the file holds, the checksum keeps it unique.
    slug = "-".join(words)[:SLUG_CHARS].strip("-") or "memory"
    slug = f"{slug}-{zlib.crc32(norm.encode()) & 0xFFFFFFFF:08x}"
    root = store.memory_root_for(peer)
    if candidate.category == "preferences":
        folder = f"preferences/{store.user}"
    elif candidate.category == "events":
        folder = "events/" + time.strftime("%Y/%m/%d", time.gmtime(now))
    else:
        folder = f"entities/{candidate.subject or 'facts'}"
    uri = f"{root}/{folder}/{slug}.md"
    n = 1
    while con.execute("SELECT 1 FROM memories WHERE uri = ?", (uri,)).fetchone():
        n += 1
        uri = f"{root}/{folder}/{slug}-{n}.md"
    return uri


def insert_memory(
    store: LocalStore,
    con: sqlite3.Connection,
    *,
    uri: str,
    peer: str,
    category: str,
    content: str,
    tags: str,
    source: str,
    now: float,
    lead: str = "",
) -> None:
    """``lead``: what the user said just before the statement (``extraction``); its words
    are searchable with the memory's own, its text is not stored."""
    from ovhooks.lexical.text import normalise

    terms = searchable_terms(content, lead)

    con.execute(
        "INSERT INTO memories (uri, owner, peer, category, title, content, abstract, tags,"
        " norm, source, created_at, updated_at, scope, terms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            uri,
            store.user,
            peer,
            category,
            first_line(content, 80),
            content,
            first_line(content),
            tags,
            normalise(content),
            source,
            now,
            now,
            scope_token(store.user, peer),
            terms,
        ),
    )


def searchable_terms(content: str, lead: str = "") -> str:
    """The memory's FTS5 terms: its own, then its lead's that it lacks (``extraction``)."""
    terms = term_string(content)
    if not lead:
        return terms
    own = set(terms.split())
    extra = [t for t in dict.fromkeys(term_string(lead).split()) if t not in own]
    return " ".join([terms, *extra]) if extra else terms


def update_memory(
    con: sqlite3.Connection, memory_id: int, content: str, now: float, *, lead: str = ""
) -> None:
    """The memory's new text (a near-duplicate statement replaced it; its lead too)."""
    from ovhooks.lexical.text import normalise

    con.execute(
        "UPDATE memories SET content = ?, title = ?, abstract = ?, norm = ?, terms = ?,"
        " updated_at = ? WHERE id = ?",
        (
            content,
            first_line(content, 80),
            first_line(content),
            normalise(content),
            searchable_terms(content, lead),
            now,
            memory_id,
        ),
    )


def memory_location(store: LocalStore, uri: str) -> tuple[str, str]:
    """``(peer, category)`` for a writable memory URI, or a 400 ``INVALID_URI``."""
    peer = ""
    rest = ""
    if uri.startswith(store.memories_root + "/"):
        rest = uri[len(store.memories_root) + 1 :]
    elif uri.startswith(f"{store.user_root}/peers/"):
        peer, sep, rest = uri[len(store.user_root) + len("/peers/") :].partition("/memories/")
        if not sep or not peer:
            rest = ""
    segments = [s for s in rest.split("/") if s]
    if not segments or not segments[-1] or segments[-1].startswith("."):
        raise invalid(f"the local store holds memory files only, not {uri!r}", "INVALID_URI")
    category = segments[0] if len(segments) > 1 else segments[0].removesuffix(".md")
    return peer, category


def write(store: LocalStore, uri: str, content: str, *, mode: str = "replace") -> JSON:
    if mode not in ("replace", "append", "create"):
        raise invalid(f"unknown write mode {mode!r}")
    uri = store.expand(uri)
    if uri == store.profile_uri:
        return write_profile(store, content, mode)
    peer, category = memory_location(store, uri)
    now = time.time()
    try:
        with Transaction(store.db()) as con:
            row = con.execute("SELECT id, content FROM memories WHERE uri = ?", (uri,)).fetchone()
            if row is not None and mode == "create":
                raise BackendError("http", f"File exists: {uri}", 409, "ALREADY_EXISTS")
            if row is None:
                insert_memory(
                    store,
                    con,
                    uri=uri,
                    peer=peer,
                    category=category,
                    content=content,
                    tags=f"memory_type={category},source=write",
                    source="write",
                    now=now,
                )
                new = content
            else:
                old = str(row[1])
                new = content
                if mode == "append" and old:
                    new = old + ("" if old.endswith("\n") else "\n") + content
                update_memory(con, int(row[0]), new, now)
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return {
        "uri": uri,
        "root_uri": store.memory_root_for(peer),
        "context_type": "memory",
        "mode": mode,
        "written_bytes": len(content.encode()),
        "content_updated": row is None or str(row[1]) != new,
    }


def write_profile(store: LocalStore, content: str, mode: str) -> JSON:
    from ovhooks.backend.local.content import read_profile

    old = read_profile(store)
    if old is not None and mode == "create":
        raise BackendError("http", f"File exists: {store.profile_uri}", 409, "ALREADY_EXISTS")
    new = content
    if mode == "append" and old:
        new = old + ("" if old.endswith("\n") else "\n") + content
    # Write-then-rename: a crash leaves the old profile or the new one, never half of it.
    tmp = f"{store.profile_path}.{os.getpid()}.tmp"
    try:
        from ovhooks.fsutil import ensure_dir

        ensure_dir(store.data_dir)
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
            handle.write(new)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, store.profile_path)
    except OSError as exc:
        raise BackendError(
            "unreachable", f"cannot write the profile: {exc}", code=LOCAL_STORE
        ) from None
    return {
        "uri": store.profile_uri,
        "root_uri": store.memories_root,
        "context_type": "memory",
        "mode": mode,
        "written_bytes": len(content.encode()),
        "content_updated": old != new,
    }


def delete(store: LocalStore, uri: str) -> JSON:
    uri = store.expand(uri)
    if uri == store.profile_uri:
        try:
            os.remove(store.profile_path)
        except FileNotFoundError:
            raise not_found(f"File not found: {uri}") from None
        except OSError as exc:
            raise BackendError(
                "unreachable", f"cannot delete the profile: {exc}", code=LOCAL_STORE
            ) from None
        return {"uri": uri, "estimated_deleted_count": 1}
    try:
        with Transaction(store.db()) as con:
            deleted = con.execute("DELETE FROM memories WHERE uri = ?", (uri,)).rowcount
            if not deleted:
                below = con.execute(
                    "SELECT 1 FROM memories WHERE uri > ? AND uri < ? LIMIT 1",
                    (uri + "/", uri + "/\U0010ffff"),
                ).fetchone()
                if below is not None or uri in (store.memories_root, store.user_root):
                    raise invalid("Cannot remove directory without --recursive")
                raise not_found(f"File not found: {uri}")
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return {"uri": uri, "estimated_deleted_count": deleted}


# Every column of a memory: what forget keeps for undo, so an undone memory comes back as it
# was (its session, turn and commit are found from ``source``; its times, type and id kept).
RECORD_COLUMNS = (
    "id",
    "uri",
    "owner",
    "peer",
    "category",
    "title",
    "content",
    "abstract",
    "tags",
    "norm",
    "source",
    "created_at",
    "updated_at",
    "scope",
    "terms",
)


def record(store: LocalStore, uri: str) -> JSON | None:
    """The whole row of the memory at ``uri`` (None when no row holds it: the profile)."""
    try:
        row = (
            store.db()
            .execute(
                f"SELECT {', '.join(RECORD_COLUMNS)} FROM memories WHERE uri = ?",
                (store.expand(uri),),
            )
            .fetchone()
        )
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return None if row is None else dict(zip(RECORD_COLUMNS, row, strict=True))


def restore(store: LocalStore, records: list[JSON]) -> list[str]:
    """Put rows ``record`` returned back as they were, in one transaction; returns their
    URIs. A row now at the same URI (written again since) gives way to the one restored; the
    old id is kept unless another memory took it, and a vector left at a new id is dropped
    (its stamp could pass for the restored row's)."""
    restored = []
    try:
        with Transaction(store.db()) as con:
            vectors = con.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'semantic_vectors'"
            ).fetchone()
            for saved in records:
                row = {c: saved[c] for c in RECORD_COLUMNS}
                con.execute("DELETE FROM memories WHERE uri = ?", (row["uri"],))
                if con.execute("SELECT 1 FROM memories WHERE id = ?", (row["id"],)).fetchone():
                    row["id"] = None
                cursor = con.execute(
                    f"INSERT INTO memories ({', '.join(RECORD_COLUMNS)})"
                    f" VALUES ({', '.join('?' * len(RECORD_COLUMNS))})",
                    tuple(row.values()),
                )
                if row["id"] is None and vectors is not None:
                    con.execute(
                        "DELETE FROM semantic_vectors WHERE kind = 'm' AND row_id = ?",
                        (cursor.lastrowid,),
                    )
                restored.append(str(row["uri"]))
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return restored
