"""Commit outcomes: the extraction task is polled, shown by status, a failure said once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ovhooks.backend.openviking import OpenVikingBackend
from ovhooks.log import Log
from ovhooks.session.commit_outcome import (
    describe,
    failure_notice,
    from_commit,
    poll_pending,
    record,
)
from ovhooks.session.store import StateStore, new_state
from ovhooks.settings.config import load_settings
from ovhooks.transport.errors import BackendError
from tests.support.cli import run_json
from tests.support.fake_openviking import FakeOpenViking
from tests.support.hooks import run_inline
from tests.support.rollouts import CodexRollout, codex_payload


class TaskServer(FakeOpenViking):
    """The fake server plus ``GET /api/v1/tasks/{id}``, answering from a script per task."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: dict[str, list[dict[str, Any]]] = {}
        self.default: list[dict[str, Any]] = [{"status": "running", "result": None}]

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if path.startswith("/api/v1/tasks/") and method == "GET":
            task_id = path.rsplit("/", 1)[1]
            script = self.scripts.get(task_id, self.default)
            answer = script.pop(0) if len(script) > 1 else script[0]
            return self._ok({"task_id": task_id, "task_type": "session_commit", **answer})
        return super()._route(method, path, query, body)


def _store(tmp_path: Path, key: str = "cx-s1") -> StateStore:
    store = StateStore(str(tmp_path / "state"))
    store.update(key, lambda d: None, create=lambda: new_state(key, "codex", "s1", 1.0))
    return store


def test_commit_answers_become_outcomes() -> None:
    assert from_commit({"status": "skipped", "task_id": None}, 1.0) is None
    local = from_commit({"status": "accepted", "memories_extracted": {"total": 2}}, 1.0)
    assert local is not None and local["status"] == "completed" and local["memories"] == 2
    server = from_commit({"status": "accepted", "task_id": "t1"}, 1.0)
    assert server is not None and server["status"] == "pending"
    assert describe(local) == "2 memories extracted"
    assert describe(server) == "extraction still running"


def _poll(store: StateStore, server: TaskServer, tmp_path: Path) -> None:
    settings = load_settings({"OVHOOKS_STATE_DIR": str(tmp_path / "state"), "OPENVIKING_URL": ""})
    settings = settings.replace(url=server.url, backend="openviking")
    slept: list[float] = []
    poll_pending(
        store,
        lambda peer: OpenVikingBackend(settings, peer),
        log=Log(str(tmp_path / "state"), "silent"),
        sleep=slept.append,
        deadline_s=30.0,
    )


def test_polling_follows_the_task_to_its_end(tmp_path: Path) -> None:
    server = TaskServer()
    server.start()
    try:
        server.scripts["t1"] = [
            {"status": "pending"},
            {"status": "running"},
            {"status": "completed", "result": {"memories_extracted": {"memory_write": 3}}},
        ]
        store = _store(tmp_path)
        record(store, "cx-s1", [{"status": "accepted", "task_id": "t1"}], 5.0)
        _poll(store, server, tmp_path)
    finally:
        server.stop()
    doc = store.load("cx-s1") or {}
    assert doc["last_extraction"]["status"] == "completed"
    assert describe(doc["last_extraction"]) == "3 memories extracted"


def test_a_failed_extraction_is_said_once(tmp_path: Path) -> None:
    server = TaskServer()
    server.start()
    try:
        server.scripts["t9"] = [{"status": "failed", "error": "Missing credentials for the VLM"}]
        store = _store(tmp_path)
        record(store, "cx-s1", [{"status": "accepted", "task_id": "t9"}], 5.0)
        _poll(store, server, tmp_path)
    finally:
        server.stop()
    first = failure_notice(store, store.all())
    assert first is not None and "Missing credentials" in first and "cx-s1" in first
    assert failure_notice(store, store.all()) is None


def test_a_forgotten_task_stops_the_polling(tmp_path: Path) -> None:
    class Gone:
        def task(self, task_id: str) -> Any:
            raise BackendError("http", "task: HTTP 404", 404)

    store = _store(tmp_path)
    record(store, "cx-s1", [{"status": "accepted", "task_id": "t2"}], 5.0)
    poll_pending(
        store,
        lambda _p: Gone(),  # type: ignore[arg-type,return-value]
        log=Log(str(tmp_path), "silent"),
        sleep=lambda _s: None,
    )
    assert (store.load("cx-s1") or {})["last_extraction"]["status"] == "unknown"


def test_session_start_reports_the_failure_and_status_shows_it(tmp_path: Path) -> None:
    server = TaskServer()
    server.start()
    server.default = [{"status": "failed", "error": "VLM answered 503"}]
    try:
        env = {
            "OPENVIKING_URL": server.url,
            "OVHOOKS_BACKEND": "openviking",
            "OVHOOKS_DETACH": "0",
            "OVHOOKS_STATE_DIR": str(tmp_path / "state"),
        }
        from tests.support.hooks import hook_env

        env = hook_env(server.url, **env)
        work = tmp_path / "w"
        work.mkdir()
        r = CodexRollout(tmp_path / "r.jsonl", "s1")
        r.turn(1)
        run_inline("stop", codex_payload("Stop", "s1", r.path, work), env)
        run_inline("session-end", codex_payload("SessionEnd", "s1", r.path, work), env)
        store = StateStore(str(tmp_path / "state"))
        assert (store.load("cx-s1") or {})["last_extraction"]["status"] == "pending"
        _poll(store, server, tmp_path)
        payload = codex_payload("SessionStart", "s2", tmp_path / "r2.jsonl", work, source="startup")
        first, _ = run_inline("session-start", payload, env)
        again, _ = run_inline("session-start", payload, env)
        _code, doc = run_json("status", env=env)
    finally:
        server.stop()
    assert "extraction failed" in str(first.get("systemMessage"))
    assert "extraction failed" not in str(again.get("systemMessage") or "")
    row = next(r for r in doc["sessions"] if r["key"] == "cx-s1")
    assert row["last_extraction"]["status"] == "failed"
