"""Doctor checks for hosts and teams: native memories, /ready, capture activity, ingestion."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from ovhooks.commands.doctor import activity, codex, ingestion, server
from ovhooks.session.store import StateStore, new_state
from ovhooks.settings.config import load_settings
from ovhooks.transport.errors import BackendError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.settings.layout import State

NOW = 1_800_000_000.0
DAY = 86400.0


def _codex_home(tmp_path: Path, config: str) -> dict[str, str]:
    home = tmp_path / "codex"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(config, encoding="utf-8")
    return {"CODEX_HOME": str(home), "HOME": str(tmp_path)}


@pytest.mark.parametrize(
    ("config", "status"),
    [
        ("[features]\nmemories = true\nhooks = true\n", "warn"),
        ("[features]\nmemories = false\n", "ok"),
        ("[features]\nhooks = true\n", "ok"),
        ("", "ok"),
    ],
)
def test_codex_native_memories(tmp_path: Path, config: str, status: str) -> None:
    assert codex.check_codex_native_memories(_codex_home(tmp_path, config))["status"] == status


def test_codex_native_memories_without_a_config(tmp_path: Path) -> None:
    env = {"CODEX_HOME": str(tmp_path / "none"), "HOME": str(tmp_path)}
    assert codex.check_codex_native_memories(env)["status"] == "skip"


class _Ready:
    name = "openviking"

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def ready(self) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ({"status": "ready", "checks": {"agfs": "ok", "ollama": "not_configured"}}, "ok"),
        ({"status": "ready", "checks": {"vectordb": "error: locked"}}, "fail"),
        (
            {"status": "ready", "checks": {"agfs": {"status": "ok", "checks": {"fs": "ok"}}}},
            "ok",
        ),
        (
            {"status": "ready", "checks": {"agfs": {"status": "ok", "checks": {"fs": "down"}}}},
            "fail",
        ),
        ({"status": "not_ready", "checks": {}}, "fail"),
        (BackendError("http", "ready: HTTP 503", 503), "fail"),
        (BackendError("http", "ready: HTTP 404", 404), "skip"),
    ],
)
def test_ready(tmp_path: Path, answer: Any, status: str) -> None:
    settings = load_settings(
        {"OVHOOKS_STATE_DIR": str(tmp_path), "OPENVIKING_URL": "http://127.0.0.1:1"}
    )
    assert server.check_ready(settings, _Ready(answer))["status"] == status  # type: ignore[arg-type]


def _capture(state_dir: Path, host: str, at: float) -> None:
    store = StateStore(str(state_dir))
    key = f"{'cx' if host == 'codex' else 'cc'}-s{at}"

    def touch(doc: State) -> None:
        doc["last_activity_at"] = at

    store.update(key, touch, create=lambda: new_state(key, host, "s", at))


def _transcript(tmp_path: Path, host: str, at: float) -> dict[str, str]:
    if host == "codex":
        folder = tmp_path / "codex" / "sessions" / "2026" / "11" / "22"
        name = "rollout-x.jsonl"
    else:
        folder = tmp_path / "claude" / "projects" / "-work"
        name = "abc.jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("{}\n", encoding="utf-8")
    os.utime(folder / name, (at, at))
    return {
        "CODEX_HOME": str(tmp_path / "codex"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "HOME": str(tmp_path),
    }


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_capture_stopped_days_ago(tmp_path: Path, host: str) -> None:
    state = tmp_path / "state"
    _capture(state, host, NOW - 9 * DAY)
    env = _transcript(tmp_path, host, NOW - 3600)
    result = activity.check_capture_activity(host, str(state), env, NOW)
    assert result["status"] == "warn"
    assert "capture stopped 9 days ago" in result["summary"]


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_capture_recent_or_unused(tmp_path: Path, host: str) -> None:
    state = tmp_path / "state"
    env = _transcript(tmp_path, host, NOW - 600)
    assert activity.check_capture_activity(host, str(state), env, NOW)["status"] == "warn"  # never
    _capture(state, host, NOW - 300)
    ok = activity.check_capture_activity(host, str(state), env, NOW)
    assert ok["status"] == "ok" and "5 min ago" in ok["summary"]
    empty = {"CODEX_HOME": str(tmp_path / "x"), "CLAUDE_CONFIG_DIR": str(tmp_path / "y")}
    assert (
        activity.check_capture_activity(host, str(tmp_path / "s2"), empty, NOW)["status"] == "skip"
    )


class _Sessions:
    name = "openviking"

    def __init__(self, uris: list[str]) -> None:
        self.uris = uris

    def ls(self, uri: str, **_kw: Any) -> list[dict[str, Any]]:
        return [{"uri": u, "isDir": True} for u in self.uris]


def test_double_ingestion_from_server_sessions_and_config(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    clean = _Sessions(["viking://user/u/sessions/cx-1", "viking://user/u/sessions/cc-2"])
    result = ingestion.check_double_ingestion(env, clean, scan_processes=False)  # type: ignore[arg-type]
    assert result["status"] == "ok"
    imported = _Sessions(["viking://user/u/sessions/ingest__codex__019a"])
    result = ingestion.check_double_ingestion(env, imported, scan_processes=False)  # type: ignore[arg-type]
    assert result["status"] == "warn" and "1 server session" in result["summary"]
    conf = tmp_path / "ov.conf"
    conf.write_text('{"ingest": {"enabled": true, "harnesses": ["codex"]}}', encoding="utf-8")
    result = ingestion.check_double_ingestion(
        {"OPENVIKING_CONFIG_FILE": str(conf)}, None, scan_processes=False
    )
    assert result["status"] == "warn" and str(conf) in result["summary"]


def test_ingest_process_is_seen(tmp_path: Path) -> None:
    import subprocess
    import sys

    fake = tmp_path / "openviking-server"
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(30)\n", encoding="utf-8")
    fake.chmod(0o755)
    proc = subprocess.Popen([str(fake), "ingest", "--watch"])
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not ingestion._ingest_processes():
            time.sleep(0.05)
        result = ingestion.check_double_ingestion({"HOME": str(tmp_path)}, None)
        assert result["status"] == "warn" and "ingest --watch" in result["summary"]
    finally:
        proc.kill()
        proc.wait()


class _OldPeer:
    """The old path peer's listing, as ``project.legacy.refresh`` asks for it."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        self.entries = entries

    def ls(self, uri: str, *, recursive: bool = False, limit: int = 0) -> list[dict[str, Any]]:
        return self.entries


@pytest.mark.parametrize(("entries", "said"), [([], False), ([{"uri": "m.md"}], True)])
def test_doctor_says_the_old_peer_is_read_only_when_it_holds_memories(
    tmp_path: Path, entries: list[dict[str, Any]], said: bool
) -> None:
    import subprocess

    from ovhooks.commands.doctor.config import check_project
    from ovhooks.project import resolve
    from ovhooks.project.legacy import refresh
    from tests.support.fake_backend import make_settings

    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".ovhooks.toml").write_text('[project]\nid = "acme-app"\n')
    settings = make_settings(str(tmp_path / "state"))
    identity = resolve(str(project))
    assert identity.legacy_peer, "a named project keeps its path peer as the old one"
    refresh(settings.state_dir, identity.peer, identity.legacy_peer, _OldPeer(entries), NOW)  # type: ignore[arg-type]
    summary = check_project(settings, str(project))["summary"]
    assert ("are still read" in summary) is said, summary
