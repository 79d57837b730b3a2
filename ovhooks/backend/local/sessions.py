"""Sessions of the local store: appending messages, committing (archive the live messages,
extract memories from what the user said), and the session views hooks read back."""

from __future__ import annotations

import _sqlite3 as sqlite3  # not the sqlite3 package: see schema.py
import json
import os
import time

from ovhooks.backend.local.schema import (
    MAX_BATCH,
    Transaction,
    db_error,
    invalid,
    iso_time,
    not_found,
    scope_token,
)
from ovhooks.capture.tokens import estimate_tokens
from ovhooks.lexical.text import term_string

MAX_PROMOTED = 200

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import JSON
    from ovhooks.backend.local.store import LocalStore


def append_messages(
    store: LocalStore, session_id: str, messages: Sequence[Mapping[str, Any]]
) -> JSON:
    from ovhooks.backend.local.messages import message_parts, parts_text

    if not session_id:
        raise invalid("session id is empty")
    if len(messages) > MAX_BATCH:
        raise invalid(f"at most {MAX_BATCH} messages per batch, got {len(messages)}")
    rows = []
    now = time.time()
    for message in messages:
        parts = message_parts(message)
        role = message.get("role")
        if not isinstance(role, str) or not role or not parts:
            raise invalid("each message needs a role and content or parts")
        meta = {k: v for k, v in message.items() if k not in ("role", "parts", "content")}
        created = message.get("created_at")
        created_at = created if isinstance(created, str) and created else iso_time(now)
        tokens = estimate_tokens(parts_text(parts))
        rows.append((role, json.dumps(parts, ensure_ascii=False), meta, created_at, tokens))
    try:
        with Transaction(store.db()) as con:
            ensure_session(store, con, session_id, now)
            next_seq = con.execute(
                "SELECT next_seq FROM sessions WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            con.executemany(
                "INSERT INTO messages (session_id, seq, role, parts, meta, created_at, tokens)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        session_id,
                        next_seq + i,
                        role,
                        parts_json,
                        json.dumps(meta, ensure_ascii=False, default=str),
                        created_at,
                        tokens,
                    )
                    for i, (role, parts_json, meta, created_at, tokens) in enumerate(rows)
                ],
            )
            con.execute(
                "UPDATE sessions SET next_seq = ?, updated_at = ? WHERE session_id = ?",
                (next_seq + len(rows), now, session_id),
            )
            count, pending = live_totals(con, session_id)
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return {
        "session_id": session_id,
        "message_count": count,
        "added": len(rows),
        "pending_tokens": pending,
    }


def ensure_session(store: LocalStore, con: sqlite3.Connection, session_id: str, now: float) -> None:
    con.execute(
        "INSERT OR IGNORE INTO sessions (session_id, owner, peer, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, store.user, store.peer, now, now),
    )


def live_totals(con: sqlite3.Connection, session_id: str) -> tuple[int, int]:
    count, pending = con.execute(
        "SELECT count(*), coalesce(sum(tokens), 0) FROM messages"
        " WHERE session_id = ? AND archive_no IS NULL",
        (session_id,),
    ).fetchone()
    return int(count), int(pending)


def commit(store: LocalStore, session_id: str, *, keep_recent_count: int = 0) -> JSON:
    try:
        with Transaction(store.db()) as con:
            return archive_and_extract(store, con, session_id, max(0, keep_recent_count))
    except sqlite3.Error as exc:
        raise db_error(exc) from None


def archive_and_extract(
    store: LocalStore, con: sqlite3.Connection, session_id: str, keep_recent: int
) -> JSON:
    from ovhooks.backend.local.overview import build_overview

    session = con.execute(
        "SELECT peer, commit_count FROM sessions WHERE session_id = ?", (session_id,)
    ).fetchone()
    if session is None:
        raise not_found(f"Session {session_id} not found")
    peer, commit_count = session
    live = con.execute(
        "SELECT seq, role, parts, meta, created_at FROM messages"
        " WHERE session_id = ? AND archive_no IS NULL ORDER BY seq",
        (session_id,),
    ).fetchall()
    to_archive = live[: len(live) - keep_recent] if keep_recent else live
    if not to_archive:
        return {
            "session_id": session_id,
            "status": "skipped",
            "task_id": None,
            "archive_uri": None,
            "archived": False,
            "reason": "no_messages",
        }
    now = time.time()
    number = commit_count + 1
    con.execute(
        "UPDATE messages SET archive_no = ?"
        " WHERE session_id = ? AND archive_no IS NULL AND seq <= ?",
        (number, session_id, to_archive[-1][0]),
    )
    messages = [
        {"role": role, "parts": json.loads(parts), **json.loads(meta)}
        for _seq, role, parts, meta, _created in to_archive
    ]
    overview = build_overview(messages, f"Session {session_id}, archive {number:03d}")
    con.execute(
        "INSERT INTO archives (session_id, number, overview, abstract, message_count,"
        " created_at, scope, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            number,
            overview.text,
            overview.abstract,
            len(to_archive),
            now,
            scope_token(store.user, peer),
            term_string(overview.text),
        ),
    )
    extracted = _extract(store, con, messages, peer, session_id, number, now)
    con.execute(
        "UPDATE sessions SET commit_count = ?, last_commit_at = ?, updated_at = ?,"
        " memories_extracted = memories_extracted + ? WHERE session_id = ?",
        (number, now, now, extracted["total"], session_id),
    )
    return {
        "session_id": session_id,
        "status": "accepted",
        "task_id": f"local-{os.urandom(8).hex()}",
        "archive_uri": store.archive_uri(session_id, number),
        "archived": True,
        "memories_extracted": extracted,
    }


def _extract(
    store: LocalStore,
    con: sqlite3.Connection,
    messages: list[JSON],
    peer: str,
    session_id: str,
    number: int,
    now: float,
) -> dict[str, int]:
    """Promote the statements of the archived user turns to memories, index the rest of what
    the user said in the history layer; the counts by category."""
    from ovhooks.backend.local.extraction import history_statements, memory_candidates
    from ovhooks.backend.local.memories import promote
    from ovhooks.backend.local.messages import prose

    user_texts = []
    for message in messages:
        if message["role"] != "user":
            continue
        texts = [p.get("text") for p in message["parts"] if p.get("type") == "text"]
        user_texts.append(prose("\n".join(t for t in texts if isinstance(t, str))))
    extracted = {"total": 0, "preferences": 0, "entities": 0, "events": 0, "merged": 0}
    # A commit of a huge backlog (an import, a 20,000-turn rollout) promotes its first
    # statements; the rest stay findable in the history layer, so the commit stays bounded.
    candidates = memory_candidates(user_texts)[:MAX_PROMOTED]
    for candidate in candidates:
        outcome = promote(store, con, candidate, peer, session_id, now)
        if outcome == "added":
            extracted["total"] += 1
            extracted[candidate.category] += 1
        elif outcome == "merged":
            extracted["merged"] += 1
    caught_up = _prune_history(con)
    scope = scope_token(store.user, peer)
    con.executemany(
        "INSERT INTO history (session_id, archive_no, text, created_at, scope, terms)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [
            (session_id, number, text, now, scope, term_string(text))
            for text in history_statements(user_texts, (c.text for c in candidates))
        ],
    )
    if caught_up:
        # this commit's rows were written by the rule: nothing to check again
        con.execute(
            "UPDATE counters SET value = (SELECT coalesce(max(id), 0) FROM history)"
            " WHERE name = 'history_checked'"
        )
    return extracted


# History rows written before the layer left out requests and questions are checked this
# many at a time, oldest first, in each commit's own transaction, until none is left.
HISTORY_CHECK_BATCH = 500


def _prune_history(con: sqlite3.Connection) -> bool:
    """Delete the next batch of old history rows the layer would not keep now (their index
    entries go with them; the embedding service drops their vectors); whether every row
    is checked."""
    from ovhooks.backend.local.extraction import belongs_in_history

    con.execute("INSERT OR IGNORE INTO counters VALUES ('history_checked', 0)")
    (checked,) = con.execute("SELECT value FROM counters WHERE name = 'history_checked'").fetchone()
    rows = con.execute(
        "SELECT id, text FROM history WHERE id > ? ORDER BY id LIMIT ?",
        (int(checked), HISTORY_CHECK_BATCH),
    ).fetchall()
    con.executemany(
        "DELETE FROM history WHERE id = ?",
        [(rid,) for rid, text in rows if not belongs_in_history(str(text))],
    )
    if rows:
        con.execute(
            "UPDATE counters SET value = ? WHERE name = 'history_checked'", (int(rows[-1][0]),)
        )
    return len(rows) < HISTORY_CHECK_BATCH


def session_info(store: LocalStore, session_id: str) -> JSON:
    try:
        con = store.db()
        row = con.execute(
            "SELECT created_at, updated_at, commit_count, last_commit_at,"
            " memories_extracted, next_seq FROM sessions WHERE session_id = ?",
            (session_id,),
        ).fetchone()
        if row is None:
            raise not_found(f"Session {session_id} not found")
        count, pending = live_totals(con, session_id)
        last_message = con.execute(
            "SELECT max(created_at) FROM messages WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    created, updated, commits, last_commit, extracted, total = row
    return {
        "session_id": session_id,
        "uri": f"{store.user_root}/sessions/{session_id}",
        "message_count": count,
        "total_message_count": int(total),
        "commit_count": int(commits),
        "memories_extracted": {"total": int(extracted)},
        "last_commit_at": iso_time(last_commit) if last_commit else None,
        "pending_tokens": pending,
        "last_message_at": last_message,
        "created_at": iso_time(created),
        "updated_at": iso_time(updated),
        "user": {"account_id": "local", "user_id": store.user},
    }


def session_context(store: LocalStore, session_id: str, token_budget: int) -> JSON:
    try:
        con = store.db()
        if not con.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone():
            raise not_found(f"Session {session_id} not found")
        latest = con.execute(
            "SELECT overview FROM archives WHERE session_id = ? ORDER BY number DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        total_archives = con.execute(
            "SELECT count(*) FROM archives WHERE session_id = ?", (session_id,)
        ).fetchone()[0]
        live = con.execute(
            "SELECT id, role, parts, created_at, tokens FROM messages"
            " WHERE session_id = ? AND archive_no IS NULL ORDER BY seq DESC",
            (session_id,),
        ).fetchall()
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    overview = latest[0] if latest else ""
    archive_tokens = estimate_tokens(overview)
    budget = max(0, token_budget - archive_tokens)
    kept: list[JSON] = []
    active_tokens = 0
    # Newest first until the budget is spent, then back to chronological order.
    for msg_id, role, parts, created_at, tokens in live:
        if active_tokens + tokens > budget:
            break
        active_tokens += tokens
        kept.append(
            {
                "id": f"msg_{msg_id}",
                "role": role,
                "parts": json.loads(parts),
                "created_at": created_at,
            }
        )
    kept.reverse()
    return {
        "latest_archive_overview": overview,
        "pre_archive_abstracts": [],
        "messages": kept,
        "estimatedTokens": archive_tokens + active_tokens,
        "stats": {
            "totalArchives": int(total_archives),
            "includedArchives": 1 if overview else 0,
            "droppedArchives": max(0, int(total_archives) - (1 if overview else 0)),
            "failedArchives": 0,
            "activeTokens": active_tokens,
            "archiveTokens": archive_tokens,
        },
    }


def newest_mark(store: LocalStore, session_id: str, prefix: str) -> str | None:
    """The newest ``turn_id`` starting with ``prefix`` among the session's messages.

    A commit only sets ``archive_no`` on the rows it archives, so live and archived messages
    are both here, in the order they were appended.
    """
    try:
        con = store.db()
        if not con.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone():
            raise not_found(f"Session {session_id} not found")
        row = con.execute(
            "SELECT mark FROM (SELECT seq, json_extract(meta, '$.turn_id') AS mark"
            " FROM messages WHERE session_id = ?)"
            " WHERE substr(mark, 1, length(?)) = ? ORDER BY seq DESC LIMIT 1",
            (session_id, prefix, prefix),
        ).fetchone()
    except sqlite3.Error as exc:
        raise db_error(exc) from None
    return str(row[0]) if row else None
