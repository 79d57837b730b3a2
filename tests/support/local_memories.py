"""Local stores filled for the memory verbs' tests: many memories at once, and memories a
session commit extracted (with the provenance an undo must keep)."""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from ovhooks.backend.local import LocalBackend
from ovhooks.backend.local.memories import RECORD_COLUMNS, insert_memory
from ovhooks.backend.local.schema import Transaction

STATEMENTS = (
    "In this repo I always use tabs, never spaces, for Python files.",
    "Our staging database listens on port 6543 behind the bastion host.",
    "We deploy the billing service on Tuesdays only, never on Fridays.",
)


def fill(data_dir: str, count: int, *, user: str = "default", now: float = 1.7e9) -> None:
    """``count`` explicit memories of ``user``'s, written in one transaction."""
    store = LocalBackend(data_dir, user=user)
    try:
        with Transaction(store.db()) as con:
            for n in range(count):
                insert_memory(
                    store,
                    con,
                    uri=f"{store.memories_root}/entities/bulk/fact-{n:05d}.md",
                    peer="",
                    category="entities",
                    content=f"Bulk fact number {n}: service {n} runs on port {10000 + n}.",
                    tags="memory_type=entities,source=write",
                    source="write",
                    now=now + n,
                )
    finally:
        store.close()


def extract(data_dir: str, session_id: str, *, user: str = "default") -> list[str]:
    """Memories a real commit of a session saying ``STATEMENTS`` extracted: their URIs."""
    store = LocalBackend(data_dir, user=user)
    try:
        messages = []
        for text in STATEMENTS:
            messages.append({"role": "user", "parts": [{"type": "text", "text": text}]})
            messages.append({"role": "assistant", "parts": [{"type": "text", "text": "Noted."}]})
        store.append_messages(session_id, messages)
        store.commit(session_id)
        rows = store.db().execute(
            "SELECT uri FROM memories WHERE source = ? ORDER BY uri", (session_id,)
        )
        return [str(r[0]) for r in rows]
    finally:
        store.close()


def records(data_dir: str) -> dict[str, dict[str, Any]]:
    """Every memory row, whole, by URI (read with the sqlite3 package, not the store); none
    when the store was never created."""
    if not os.path.exists(f"{data_dir}/memory.db"):
        return {}
    con = sqlite3.connect(f"{data_dir}/memory.db")
    try:
        rows = con.execute(f"SELECT {', '.join(RECORD_COLUMNS)} FROM memories").fetchall()
    finally:
        con.close()
    return {str(r[1]): dict(zip(RECORD_COLUMNS, r, strict=True)) for r in rows}
