"""An OpenCode store (``opencode.db``) rebuilt from the recorded rows (tests/fixtures/opencode).

``scripts/record_shim_fixtures.py`` keeps the real CREATE TABLE statements and rows of the
``session``, ``message`` and ``part`` tables of an OpenCode 1.18.33 run; tests build a
database from them and add rows of their own.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parents[1] / "fixtures" / "opencode" / "session-store.json"


def recorded() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return doc


def build_store(path: Path, *, tables: tuple[str, ...] = ("session", "message", "part")) -> Path:
    """A SQLite file at ``path`` holding the recorded rows; returns ``path``."""
    doc = recorded()
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        for table in tables:
            db.execute(doc["schema"][table])
            rows = doc["rows"][table]
            if rows:
                columns = list(rows[0])
                marks = ", ".join("?" for _ in columns)
                db.executemany(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                    [tuple(row[c] for c in columns) for row in rows],
                )
    return path


def session_ids() -> list[str]:
    """Recorded session ids, oldest first."""
    rows = sorted(recorded()["rows"]["session"], key=lambda r: r["time_created"])
    return [str(r["id"]) for r in rows]


def add_message(
    path: Path, session_id: str, message_id: str, info: dict[str, Any], parts: list[dict[str, Any]]
) -> None:
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data) "
            "VALUES (?, ?, 0, 0, ?)",
            (message_id, session_id, json.dumps(info)),
        )
        for index, part in enumerate(parts):
            db.execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
                "VALUES (?, ?, ?, 0, 0, ?)",
                (f"prt_{message_id}_{index:03d}", message_id, session_id, json.dumps(part)),
            )
