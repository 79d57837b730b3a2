"""doctor and status on Pi and OpenCode: installed or not, the command still there, active."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ovhooks.commands.doctor.shims import check_shim_host, shim_command
from ovhooks.session.store import StateStore, new_state
from tests.support.cli import run_cli, run_json


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    values = {
        "PI_CODING_AGENT_DIR": str(tmp_path / "pi-agent"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "HOME": str(tmp_path / "home"),
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    return values


def _exe(tmp_path: Path) -> str:
    exe = tmp_path / "bin" / "ovhooks"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return str(exe)


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_doctor_skips_a_host_that_is_not_there_and_fails_one_without_ovhooks(
    host: str, env: dict[str, str], tmp_path: Path
) -> None:
    cwd = str(tmp_path / "project")
    assert check_shim_host(host, env, cwd)["status"] == "skip"
    folder = (
        Path(env["PI_CODING_AGENT_DIR"])
        if host == "pi"
        else Path(env["XDG_CONFIG_HOME"], "opencode")
    )
    folder.mkdir(parents=True)
    failed = check_shim_host(host, env, cwd)
    assert failed["status"] == "fail" and f"ovhooks install {host}" in failed["fix"]


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_doctor_sees_the_installed_shim_and_a_command_that_is_gone(
    host: str, env: dict[str, str], tmp_path: Path
) -> None:
    exe = _exe(tmp_path)
    assert run_cli("install", host, "--exe", exe).exit_code == 0
    cwd = str(tmp_path / "project")
    ok = check_shim_host(host, env, cwd)
    assert ok["status"] == "ok", ok
    os.unlink(exe)
    gone = check_shim_host(host, env, cwd)
    assert gone["status"] == "fail" and exe in gone["summary"], gone


def test_a_foreign_file_in_place_of_the_shim_is_not_ovhooks() -> None:
    assert shim_command("export default function mine() {}\n") is None
    line = (
        'const OVHOOKS = ["/a/ovhooks", "-x"]; // ovhooks-command (written by `ovhooks install pi`)'
    )
    assert shim_command(line) == ["/a/ovhooks", "-x"]
    broken = "const OVHOOKS = [oops; // ovhooks-command (written by `ovhooks install pi`)"
    assert shim_command(broken) == []


def test_status_lists_every_host_installed_and_active(env: dict[str, str], tmp_path: Path) -> None:
    run_cli("install", "pi", "--exe", _exe(tmp_path))
    now = time.time()
    store = StateStore(os.environ["OVHOOKS_STATE_DIR"])
    for key, host in (("pi-one", "pi"), ("pi-two", "pi"), ("oc-one", "opencode")):
        state = new_state(key, host, key, now)
        state["last_activity_at"] = now - 30
        store.save(state)
    code, doc = run_json("status", "--offline")
    assert code == 0, doc
    rows = {row["host"]: row for row in doc["hosts"]}
    assert list(rows) == ["codex", "claude", "pi", "opencode", "gemini", "copilot", "qwen", "droid"]
    assert rows["pi"]["installed"] == ["user"] and rows["pi"]["sessions"] == 2
    assert rows["opencode"]["installed"] == [] and rows["opencode"]["sessions"] == 1
    assert rows["opencode"]["last_capture_at"] == pytest.approx(now - 30)
    assert rows["codex"]["sessions"] == 0 and rows["codex"]["last_capture_at"] is None
    text = run_cli("status", "--offline").output
    assert "Pi (user; 2 sessions, last capture" in " ".join(text.split())


@pytest.mark.parametrize(
    ("host", "other"),
    [
        ("pi", "extensions/openviking/index.ts"),
        ("pi", "settings.json"),
        ("opencode", "plugins/openviking.js"),
        ("opencode", "opencode.json"),
    ],
)
def test_doctor_warns_when_openvikings_own_integration_is_there_too(
    host: str, other: str, env: dict[str, str], tmp_path: Path
) -> None:
    run_cli("install", host, "--exe", _exe(tmp_path))
    cwd = str(tmp_path / "project")
    assert check_shim_host(host, env, cwd)["status"] == "ok"
    base = (
        Path(env["PI_CODING_AGENT_DIR"])
        if host == "pi"
        else Path(env["XDG_CONFIG_HOME"], "opencode")
    )
    target = base / other
    target.parent.mkdir(parents=True, exist_ok=True)
    key = "packages" if host == "pi" else "plugin"
    target.write_text(json.dumps({key: ["@openviking/opencode-plugin", "../openviking"]}))
    warned = check_shim_host(host, env, cwd)
    assert warned["status"] == "warn" and "twice" in warned["summary"], warned
    assert str(target) in warned["fix"] or str(target.parent) in warned["fix"]
