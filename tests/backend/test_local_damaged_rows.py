"""A memory row another tool wrote with the wrong SQLite types (a BLOB for the text, a string
for the time) is rated and found like any other: before, the local store's search raised
TypeError on it, and recall failed (open, injecting nothing) for every prompt it matched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ovhooks.backend.local import LocalBackend


@pytest.mark.parametrize(
    "assignment",
    [
        "content = CAST(content AS BLOB)",
        "abstract = CAST(abstract AS BLOB), tags = CAST(tags AS BLOB)",
        "updated_at = 'x'",
        "updated_at = 1e308",
    ],
)
def test_a_damaged_row_is_still_found(tmp_path: Path, assignment: str) -> None:
    store = LocalBackend(str(tmp_path / "data"), user="default", peer="proj-a")
    root = store.memories_root
    damaged, sound = f"{root}/preferences/port.md", f"{root}/preferences/port2.md"
    store.write(damaged, "The staging database listens on port 6543")
    store.write(sound, "The staging cache listens on port 6380")
    store.close()
    con = sqlite3.connect(tmp_path / "data" / "memory.db")
    con.execute(f"UPDATE memories SET {assignment} WHERE uri = ?", (damaged,))
    con.commit()
    con.close()
    store = LocalBackend(str(tmp_path / "data"), user="default", peer="proj-a")
    found = store.search_context("staging database port 6543", max_tokens=2000)
    entries = {e["uri"]: e for e in found["entries"]}
    assert damaged in entries and sound in entries
    assert "6543" in entries[damaged]["text"] and isinstance(entries[damaged]["abstract"], str)
    store.close()
