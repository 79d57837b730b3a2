"""The vectors' table in the local store's SQLite file, and what is still pending
(numpy-free: ``status`` counts pending rows without loading the service's stack).

Every vector names its model (the bundled one's ``MODEL_KEY``, or a user's own endpoint
model's ``ext:<api>:<model>``), so a store written before models could be chosen needs no
migration: its vectors are the bundled model's, and another model's are added beside them."""

from __future__ import annotations

import sqlite3

from ovhooks.semantic import MODEL_KEY

TABLE = "semantic_vectors"
_DDL = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    row_id INTEGER NOT NULL,
    owner TEXT NOT NULL,
    peer TEXT NOT NULL,
    stamp REAL NOT NULL,
    vec BLOB NOT NULL,
    PRIMARY KEY (model, kind, row_id)
) WITHOUT ROWID"""
# Rows that need a vector: no vector for this model, or one older than the row.
PENDING = {
    "m": (
        "SELECT m.id, m.content, m.owner, m.peer, m.updated_at FROM memories m"
        f" LEFT JOIN {TABLE} v ON v.model = ? AND v.kind = 'm' AND v.row_id = m.id"
        " WHERE v.row_id IS NULL OR v.stamp < m.updated_at"
    ),
    "h": (
        "SELECT h.id, h.text, s.owner, s.peer, h.created_at FROM history h"
        " JOIN sessions s ON s.session_id = h.session_id"
        f" LEFT JOIN {TABLE} v ON v.model = ? AND v.kind = 'h' AND v.row_id = h.id"
        " WHERE v.row_id IS NULL"
    ),
}


def connect(path: str) -> sqlite3.Connection:
    con = sqlite3.connect(path, timeout=10.0, check_same_thread=False, isolation_level=None)
    con.execute("PRAGMA busy_timeout = 10000")
    return con


def ensure_table(con: sqlite3.Connection) -> None:
    con.execute(_DDL)


def has_store_tables(con: sqlite3.Connection) -> bool:
    names = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"memories", "history", "sessions"} <= names


def count_pending(con: sqlite3.Connection, model: str = MODEL_KEY) -> int:
    """Rows without a current vector of ``model`` (all of them in a store never embedded)."""
    if not has_vector_table(con):
        (memories,) = con.execute("SELECT count(*) FROM memories").fetchone()
        (history,) = con.execute("SELECT count(*) FROM history").fetchone()
        return int(memories) + int(history)
    total = 0
    for sql in PENDING.values():
        (count,) = con.execute(f"SELECT count(*) FROM ({sql})", (model,)).fetchone()
        total += int(count)
    return total


def has_vector_table(con: sqlite3.Connection) -> bool:
    row = con.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone()
    return row is not None


def drop_orphans(con: sqlite3.Connection) -> None:
    """Vectors whose row was deleted (``forget``)."""
    con.execute(f"DELETE FROM {TABLE} WHERE kind = 'm' AND row_id NOT IN (SELECT id FROM memories)")
    con.execute(f"DELETE FROM {TABLE} WHERE kind = 'h' AND row_id NOT IN (SELECT id FROM history)")
