"""Reading the local store as a file tree (read, ls) and iterating it for export."""

from __future__ import annotations

import _sqlite3 as sqlite3  # not the sqlite3 package: see schema.py
import json
import os

from ovhooks.backend.local.schema import (
    MEMORY_CATEGORIES,
    db_error,
    first_line,
    invalid,
    iso_time,
    not_found,
)
from ovhooks.transport.errors import LOCAL_STORE, BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.backend.base import JSON
    from ovhooks.backend.local.store import LocalStore


def read_profile(store: LocalStore) -> str | None:
    try:
        with open(store.profile_path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BackendError(
            "unreachable", f"cannot read {store.profile_path}: {exc}", code=LOCAL_STORE
        ) from None


def archive_ref(store: LocalStore, uri: str) -> tuple[str, int, str] | None:
    """``(session_id, number, file)`` for an archive URI (file: "", overview, abstract)."""
    prefix = f"{store.user_root}/sessions/"
    if not uri.startswith(prefix):
        return None
    session_id, sep, rest = uri[len(prefix) :].partition("/history/archive_")
    if not sep:
        return None
    number_text, _, leaf = rest.partition("/")
    if not number_text.isdigit():
        return None
    file = {"": "", ".overview.md": "overview", ".abstract.md": "abstract"}.get(leaf)
    return None if file is None else (session_id, int(number_text), file)


def read(store: LocalStore, uri: str, level: str = "full") -> str:
    if level not in ("full", "abstract", "overview"):
        raise invalid(f"unknown read level {level!r}")
    uri = store.expand(uri)
    if uri == store.profile_uri:
        text = read_profile(store)
        if text is None:
            raise not_found(f"File not found: {uri}")
        return first_line(text) if level == "abstract" else text
    try:
        con = store.db()
        archive = archive_ref(store, uri)
        if archive is not None:
            row = con.execute(
                "SELECT overview, abstract FROM archives WHERE session_id = ? AND number = ?",
                archive[:2],
            ).fetchone()
            if row is None:
                raise not_found(f"File not found: {uri}")
            wants_abstract = archive[2] == "abstract" or (not archive[2] and level == "abstract")
            return str(row[1] if wants_abstract else row[0])
        row = con.execute("SELECT content, abstract FROM memories WHERE uri = ?", (uri,)).fetchone()
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    if row is None:
        raise not_found(f"File not found: {uri}")
    return str(row[1] if level == "abstract" else row[0])


def ls(store: LocalStore, uri: str, *, recursive: bool = False, limit: int = 512) -> list[JSON]:
    uri = store.expand(uri)
    entries: dict[str, JSON] = {}

    def add(
        child: str, *, is_dir: bool, size: int = 0, mtime: float = 0.0, abstract: str = ""
    ) -> None:
        if child not in entries:
            entries[child] = {
                "uri": child,
                "size": size,
                "isDir": is_dir,
                "modTime": iso_time(mtime) if mtime else "",
                "abstract": abstract,
            }

    def add_path(path: str, size: int, mtime: float, abstract: str) -> None:
        """A file below ``uri``: itself when recursive, else the top child under ``uri``."""
        rest = path[len(uri) + 1 :]
        segments = rest.split("/")
        for depth in range(1, len(segments)):
            if not recursive and depth > 1:
                break
            add(uri + "/" + "/".join(segments[:depth]), is_dir=True)
        if recursive or len(segments) == 1:
            add(path, is_dir=False, size=size, mtime=mtime, abstract=abstract)

    known_dir = uri in (store.user_root, store.memories_root) or uri.startswith(
        (store.memories_root + "/", f"{store.user_root}/peers", f"{store.user_root}/sessions")
    )
    if uri == store.user_root:
        add(store.memories_root, is_dir=True)
    if uri == store.memories_root or (recursive and uri == store.user_root):
        for category in MEMORY_CATEGORIES:
            add(f"{store.memories_root}/{category}", is_dir=True)
    profile = read_profile(store)
    if profile is not None and store.profile_uri.startswith(uri + "/"):
        mtime = os.path.getmtime(store.profile_path)
        add_path(store.profile_uri, len(profile.encode()), mtime, first_line(profile))
    try:
        con = store.db()
        rows = con.execute(
            "SELECT uri, length(CAST(content AS BLOB)), updated_at, abstract FROM memories"
            " WHERE uri > ? AND uri < ? ORDER BY uri",
            (uri + "/", uri + "/\U0010ffff"),
        ).fetchall()
        sessions_root = f"{store.user_root}/sessions"
        if (
            uri == sessions_root
            or uri.startswith(sessions_root + "/")
            or (recursive and uri == store.user_root)
        ):
            archives = con.execute(
                "SELECT a.session_id, a.number, length(CAST(a.overview AS BLOB)),"
                " a.created_at, a.abstract FROM archives a"
                " JOIN sessions s ON s.session_id = a.session_id WHERE s.owner = ?",
                (store.user,),
            ).fetchall()
            for sid, number, size, created, abstract in archives:
                path = store.archive_uri(sid, number)
                if path.startswith(uri + "/"):
                    add_path(path, size, created, abstract)
        if (
            uri == store.user_root
            and con.execute(
                "SELECT 1 FROM sessions WHERE owner = ? LIMIT 1", (store.user,)
            ).fetchone()
        ):
            add(sessions_root, is_dir=True)
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    for path, size, updated, abstract in rows:
        add_path(path, int(size), float(updated), abstract)
    if not entries and not known_dir:
        raise not_found(f"Directory not found: {uri}")
    if not entries and uri.startswith(store.memories_root + "/"):
        category = uri[len(store.memories_root) + 1 :]
        if category not in MEMORY_CATEGORIES:
            raise not_found(f"Directory not found: {uri}")
    return sorted(entries.values(), key=lambda e: str(e["uri"]))[: max(1, limit)]


def export_sessions(store: LocalStore) -> list[JSON]:
    """This user's sessions, oldest first: ``{session_id, peer, commit_count, seqs}``,
    ``seqs`` listing ``(seq, archive number or None while live)`` of every message."""
    try:
        con = store.db()
        sessions = con.execute(
            "SELECT session_id, peer, commit_count FROM sessions"
            " WHERE owner = ? ORDER BY created_at, session_id",
            (store.user,),
        ).fetchall()
        out: list[JSON] = []
        for session_id, peer, commit_count in sessions:
            seqs = con.execute(
                "SELECT seq, archive_no FROM messages WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
            out.append(
                {
                    "session_id": session_id,
                    "peer": peer,
                    "commit_count": int(commit_count),
                    "seqs": [(int(seq), archive) for seq, archive in seqs],
                }
            )
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return out


def export_messages(
    store: LocalStore, session_id: str, first_seq: int, last_seq: int
) -> list[JSON]:
    """Messages ``first_seq..last_seq`` of a session as they were appended, in order."""
    try:
        rows = (
            store.db()
            .execute(
                "SELECT role, parts, meta FROM messages"
                " WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                (session_id, first_seq, last_seq),
            )
            .fetchall()
        )
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return [
        {"role": role, "parts": json.loads(parts), **json.loads(meta)} for role, parts, meta in rows
    ]


def export_memories(store: LocalStore) -> list[tuple[str, str, str]]:
    """``(uri, peer, content)`` of every memory file of this user, the profile included."""
    try:
        rows = (
            store.db()
            .execute(
                "SELECT uri, peer, content FROM memories WHERE owner = ? ORDER BY uri",
                (store.user,),
            )
            .fetchall()
        )
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    out = [(str(uri), str(peer), str(content)) for uri, peer, content in rows]
    profile = read_profile(store)
    if profile is not None:
        out.append((store.profile_uri, "", profile))
    return out
