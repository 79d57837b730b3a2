"""doctor: each broken set-up is detected and its fix named."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ovhooks.commands import hostconfig
from ovhooks.commands.install.hooks_json import our_handlers
from tests.support.cli import (
    ENVELOPE,
    OPT_STR,
    check_schema,
    run_cli,
    run_json,
)
from tests.support.fake_openviking import FakeOpenViking
from tests.support.fake_openviking_api import VERSION
from tests.support.fake_openviking_auth import AuthFakeOpenViking

DOCTOR_SCHEMA = {
    **ENVELOPE,
    "backend": str,
    "why_backend": str,
    "counts": {"ok": int, "warn": int, "fail": int, "skip": int},
    "checks": [{"name": str, "status": str, "summary": str, "fix": str, "details": dict}],
}


@pytest.fixture
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "no-claude"))
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return home


def trust_all(codex_home: Path) -> None:
    """Write the trust records Codex's /hooks review would write."""
    hooks_path = codex_home / "hooks.json"
    doc = json.loads(hooks_path.read_text())
    lines = []
    for event, gi, hi, _command in our_handlers(doc):
        key = f"{hooks_path}:{hostconfig.event_key(event)}:{gi}:{hi}"
        lines.append(f'\n[hooks.state."{key}"]\ntrusted_hash = "sha256:00"\n')
    config = codex_home / "config.toml"
    config.write_text(config.read_text() + "".join(lines))


def ready(codex_home: Path, url: str, **env: str) -> dict[str, str]:
    assert run_cli("install", "codex").exit_code == 0
    trust_all(codex_home)
    return {"OPENVIKING_URL": url, "OVHOOKS_BACKEND": "openviking", **env}


def doctor(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    code, doc = run_json("doctor", *args, env=env)
    check_schema(doc, DOCTOR_SCHEMA)
    return code, doc, {c["name"]: c for c in doc["checks"]}


def test_healthy_setup_passes(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    code, doc, checks = doctor(ready(codex_home, fake_ov.url), "--write-test")
    assert code == 0 and doc["ok"] is True, [c for c in doc["checks"] if c["status"] == "fail"]
    assert checks["server"]["details"]["version"] == VERSION
    assert checks["hooks:codex"]["status"] == "ok"
    assert checks["hooks:claude"]["status"] == "skip"
    assert checks["write"]["status"] == "ok"
    scratch = checks["write"]["details"]["session"]
    assert fake_ov.messages(scratch), "the write test must reach the server"
    assert not any(r["path"].endswith("/commit") for r in fake_ov.requests)
    assert "backend" in checks and "OVHOOKS_BACKEND" in doc["why_backend"]


def test_server_down(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    env = ready(codex_home, fake_ov.url)
    fake_ov.refuse()
    code, _doc, checks = doctor(env)
    assert code == 6
    assert checks["server"]["status"] == "fail"
    assert "server down" in checks["server"]["summary"]
    assert "start the OpenViking server" in checks["server"]["fix"]
    assert checks["identity"]["status"] == "skip"


@pytest.mark.parametrize("how", ["path", "html"])
def test_wrong_url(fake_ov: FakeOpenViking, codex_home: Path, how: str) -> None:
    url = fake_ov.url + "/api/v1" if how == "path" else fake_ov.url
    if how == "html":
        fake_ov.mode = "html"
    code, _doc, checks = doctor(ready(codex_home, url))
    assert code == 6
    assert "wrong URL" in checks["server"]["summary"]
    assert "OPENVIKING_URL" in checks["server"]["fix"]


def test_bad_key(codex_home: Path) -> None:
    server = AuthFakeOpenViking("api_key", user_keys={"user-key-good-123": "alice"}).start()
    try:
        bad = "user-key-WRONG-987654"
        env = ready(codex_home, server.url, OPENVIKING_API_KEY=bad)
        result = run_cli("doctor", env=env)
        code, _doc, checks = doctor(env)
    finally:
        server.stop()
    assert code == 6
    assert "bad key" in checks["identity"]["summary"]
    assert "OPENVIKING_API_KEY" in checks["identity"]["fix"]
    assert bad not in result.stdout + result.stderr, "the key must never be printed"
    assert "fix:" in result.stdout


def test_good_user_key_passes(codex_home: Path) -> None:
    server = AuthFakeOpenViking("api_key", user_keys={"user-key-good-123": "alice"}).start()
    try:
        code, doc, checks = doctor(
            ready(codex_home, server.url, OPENVIKING_API_KEY="user-key-good-123")
        )
    finally:
        server.stop()
    assert code == 0, doc
    assert checks["auth"]["status"] == "ok"


def test_trusted_mode_without_tenant(codex_home: Path) -> None:
    server = AuthFakeOpenViking("trusted")
    server.start()
    try:
        env = ready(codex_home, server.url, OPENVIKING_API_KEY=server.root_key)
        code, _doc, checks = doctor(env)
        ok_code, ok_doc, _ = doctor(
            {**env, "OPENVIKING_ACCOUNT": "acme", "OPENVIKING_USER": "alice"}
        )
    finally:
        server.stop()
    assert code == 6
    assert "trusted mode without tenant" in checks["auth"]["summary"]
    assert "OPENVIKING_ACCOUNT" in checks["auth"]["fix"]
    assert checks["identity"]["status"] == "fail"
    assert ok_code == 0, ok_doc


def test_key_missing_for_api_key_server(codex_home: Path) -> None:
    server = AuthFakeOpenViking("api_key").start()
    try:
        code, _doc, checks = doctor(ready(codex_home, server.url))
    finally:
        server.stop()
    assert code == 6 and checks["auth"]["status"] == "fail"
    assert "OPENVIKING_API_KEY" in checks["auth"]["fix"]


def test_hooks_missing(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    env = {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}
    code, _doc, checks = doctor(env)
    assert code == 6
    assert "hooks missing" in checks["hooks:codex"]["summary"]
    assert checks["hooks:codex"]["fix"] == "run `ovhooks install codex`"


def test_no_host_at_all(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    codex_home.rmdir()
    env = {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}
    code, _doc, checks = doctor(env)
    assert code == 6 and checks["hooks"]["status"] == "fail"


def test_codex_hooks_not_trusted(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    assert run_cli("install", "codex").exit_code == 0
    env = {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}
    code, _doc, checks = doctor(env)
    assert code == 6
    assert "not trusted" in checks["hooks:codex"]["summary"]
    assert "/hooks" in checks["hooks:codex"]["fix"]


def test_codex_feature_off(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    env = ready(codex_home, fake_ov.url)
    config = codex_home / "config.toml"
    config.write_text(config.read_text().replace("hooks = true", "hooks = false"))
    code, _doc, checks = doctor(env)
    assert code == 6 and "feature is off" in checks["hooks:codex"]["summary"]


def test_stale_executable(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    assert run_cli("install", "codex", "--exe", "/gone/venv/bin/ovhooks").exit_code == 0
    trust_all(codex_home)
    env = {"OPENVIKING_URL": fake_ov.url, "OVHOOKS_BACKEND": "openviking"}
    code, _doc, checks = doctor(env)
    assert code == 6 and "no longer exists" in checks["hooks:codex"]["summary"]


def test_state_dir_unwritable(fake_ov: FakeOpenViking, codex_home: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = ready(codex_home, fake_ov.url, OVHOOKS_STATE_DIR=str(blocker / "state"))
    code, _doc, checks = doctor(env)
    assert code == 6
    assert "unwritable" in checks["state_dir"]["summary"]
    assert "OVHOOKS_STATE_DIR" in checks["state_dir"]["fix"]


def test_state_dir_open_to_others_warns(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    state = Path(os.environ["OVHOOKS_STATE_DIR"])
    state.mkdir(mode=0o755)
    state.chmod(0o755)
    code, _doc, checks = doctor(ready(codex_home, fake_ov.url))
    assert code == 0
    assert checks["state_dir"]["status"] == "warn" and "chmod 700" in checks["state_dir"]["fix"]


def test_queue_and_recent_errors_reported(fake_ov: FakeOpenViking, codex_home: Path) -> None:
    from ovhooks.log import Log
    from ovhooks.outbox.queue import Outbox
    from ovhooks.session.store import StateStore

    state = os.environ["OVHOOKS_STATE_DIR"]
    Outbox(StateStore(state), "cx-abc").enqueue("commit", "cx-abc", reason="t")
    Log(state, "error").error("drain_failed", session="cx-abc", error="unreachable: boom")
    code, _doc, checks = doctor(ready(codex_home, fake_ov.url))
    assert code == 0
    assert checks["queue"]["status"] == "warn" and "ovhooks flush" in checks["queue"]["fix"]
    assert checks["queue"]["details"]["queued"] == 1
    assert checks["errors"]["status"] == "warn"
    assert checks["errors"]["details"]["events"] == {"drain_failed": 1}


def test_local_backend_is_named(codex_home: Path) -> None:
    code, doc, checks = doctor({"OVHOOKS_BACKEND": "local"})
    assert doc["backend"] == "local"
    assert checks["server"]["details"]["url"] is None
    check_schema(checks["backend"]["details"], {"backend": str, "why": OPT_STR})
    assert code in (0, 6)


def test_a_home_that_is_a_file_fails_checks_one_by_one(tmp_path: Path) -> None:
    # A campaign: HOME naming a file stopped doctor at its first host file ("cannot read
    # ~/.codex/config.toml: Not a directory", fix "check the file's permissions"), and the
    # local store's failure told the user to start an OpenViking server.
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    env = {
        "HOME": str(home),
        "OVHOOKS_DATA_DIR": str(home / "data"),
        "OVHOOKS_STATE_DIR": str(tmp_path / "state"),
        "OVHOOKS_BACKEND": "local",
        "OVHOOKS_SEMANTIC": "off",
        "OPENVIKING_URL": None,
        "CODEX_HOME": None,
        "CLAUDE_CONFIG_DIR": None,
    }
    code, doc = run_json("doctor", env=env)
    assert code == 6 and doc["ok"] is False
    by_name = {c["name"]: c for c in doc["checks"]}
    assert by_name["server"]["status"] == "fail"
    assert "OpenViking" not in by_name["server"]["fix"]
    assert "local memory store" in by_name["server"]["summary"]
    assert by_name["mcp:codex"]["status"] == "fail"
    assert "is HOME a folder?" in by_name["mcp:codex"]["fix"]
    assert "semantic" in by_name  # the report went on to its last check
