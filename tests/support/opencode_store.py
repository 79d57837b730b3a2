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


class OpenCodeSession:
    """One OpenCode 1.18 session written turn by turn into a store (``opencode.db`` under
    ``root``, WAL as OpenCode keeps it) that already holds the recorded sessions: a ``session``
    row, then per prompt a user message with its text part, per reply a completed assistant
    message with ``step-start``, ``text`` and ``step-finish`` parts. Message ids grow with
    time, as OpenCode's do (the reader's cursor is the last id)."""

    def __init__(self, root: Path, session_id: str, cwd: str) -> None:
        self.path = root / "opencode.db"
        self.session_id = session_id
        self.cwd = cwd
        self.n = 0
        self.last_user = ""
        if not self.path.exists():
            build_store(self.path)
        row = dict(recorded()["rows"]["session"][0], id=session_id, directory=cwd)
        columns = list(row)
        with sqlite3.connect(self.path) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                f"INSERT INTO session ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})",
                tuple(row[c] for c in columns),
            )

    def _next(self) -> tuple[str, int]:
        self.n += 1
        millis = 1795676189136 + self.n * 1000
        return f"msg_{0x300000000000 + self.n:012x}Campaign{self.n:06d}", millis

    def prompt(self, text: str) -> None:
        message_id, millis = self._next()
        info = {
            "role": "user",
            "time": {"created": millis},
            "agent": "build",
            "model": {"providerID": "stub", "modelID": "stub-model"},
            "summary": {"diffs": []},
        }
        add_message(self.path, self.session_id, message_id, info, [{"type": "text", "text": text}])
        self.last_user = message_id

    def reply(self, text: str) -> None:
        message_id, millis = self._next()
        tokens = {
            "total": 50,
            "input": 40,
            "output": 10,
            "reasoning": 0,
            "cache": {"write": 0, "read": 0},
        }
        info = {
            "parentID": self.last_user,
            "role": "assistant",
            "mode": "build",
            "agent": "build",
            "path": {"cwd": self.cwd, "root": "/"},
            "cost": 0,
            "tokens": tokens,
            "modelID": "stub-model",
            "providerID": "stub",
            "time": {"created": millis, "completed": millis + 500},
            "finish": "stop",
        }
        parts: list[dict[str, Any]] = [
            {"type": "step-start"},
            {"type": "text", "text": text, "time": {"start": millis, "end": millis + 400}},
            {"reason": "stop", "type": "step-finish", "tokens": tokens, "cost": 0},
        ]
        add_message(self.path, self.session_id, message_id, info, parts)
