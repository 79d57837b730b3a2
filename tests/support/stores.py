"""One view over both backends for lifecycle tests: what did the store receive?

Registered as a pytest plugin (tests/conftest.py): the ``store`` fixture runs a test once
against the fake OpenViking server and once against the local store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import hook_env


def _text(parts: list[dict[str, Any]]) -> str:
    return " ".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class FakeServerStore:
    name = "openviking"

    def __init__(self, server: FakeOpenViking) -> None:
        self.server = server

    def env(self, **overrides: str) -> dict[str, str]:
        return hook_env(self.server.url, **overrides)

    def texts(self, session: str) -> list[str]:
        return self.server.texts(session)

    def commit_count(self, session: str) -> int:
        return int(self.server.sessions.get(session, {}).get("commit_count", 0))

    def append_calls(self, session: str) -> list[int]:
        """Messages per append request, in order."""
        return [
            len(r["body"]["messages"])
            for r in self.server.requests
            if r["path"] == f"/api/v1/sessions/{session}/messages/batch"
        ]


class LocalStore:
    name = "local"

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir

    def env(self, **overrides: str) -> dict[str, str]:
        env = hook_env(None, **overrides)
        env.pop("OPENVIKING_URL", None)
        env["OVHOOKS_BACKEND"] = "local"
        env["OVHOOKS_DATA_DIR"] = str(self.data_dir)
        return env

    def _db(self) -> sqlite3.Connection:
        return sqlite3.connect(self.data_dir / "memory.db")

    def texts(self, session: str) -> list[str]:
        if not (self.data_dir / "memory.db").exists():
            return []
        with self._db() as db:
            rows = db.execute(
                "SELECT parts FROM messages WHERE session_id = ? ORDER BY seq", (session,)
            ).fetchall()
        return [_text(json.loads(parts)) for (parts,) in rows]

    def commit_count(self, session: str) -> int:
        if not (self.data_dir / "memory.db").exists():
            return 0
        with self._db() as db:
            row = db.execute(
                "SELECT commit_count FROM sessions WHERE session_id = ?", (session,)
            ).fetchone()
        return int(row[0]) if row else 0


@pytest.fixture(params=["openviking", "local"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FakeServerStore | LocalStore]:
    """Each backend in turn: the fake server (started and stopped here) or a local store."""
    if request.param == "local":
        yield LocalStore(tmp_path / "data")
        return
    server = FakeOpenViking().start()
    yield FakeServerStore(server)
    server.stop()
