"""``ovhooks install|uninstall gemini`` on a copy of a real Gemini CLI settings.json (the one
the recorder ran with: hooks of its own, auth, privacy), and Gemini in ``doctor``/``status``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ovhooks.commands import hostconfig
from ovhooks.commands.install.hooks_json import our_handlers
from ovhooks.hosts import launch
from tests.support.cli import run_cli, run_json
from tests.support.gemini_replies import FIXTURES

EXE = "/opt/ovhooks-venv/bin/ovhooks"


@pytest.fixture
def gemini_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~/.gemini`` (``$GEMINI_CLI_HOME/.gemini``) holding the recorded settings.json."""
    home = tmp_path / "gemini-cli-home"
    (home / ".gemini").mkdir(parents=True)
    shutil.copyfile(FIXTURES / "settings.json", home / ".gemini" / "settings.json")
    (home / ".gemini" / "settings.json").chmod(0o640)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.chdir(project)
    return home / ".gemini"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_install_then_uninstall_restores_the_bytes(gemini_home: Path) -> None:
    before = _files(gemini_home)
    settings = gemini_home / "settings.json"
    result = run_cli("install", "gemini", "--exe", EXE)
    assert result.exit_code == 0, result.output
    doc = json.loads(settings.read_text())
    assert {h[0] for h in our_handlers(doc)} == {e for e, *_ in hostconfig.HOOK_TABLE["gemini"]}
    original = json.loads(before[str(settings)])
    for key in ("security", "privacy", "general"):
        assert doc[key] == original[key]  # every other setting untouched
    for event, groups in original["hooks"].items():
        assert doc["hooks"][event][: len(groups)] == groups  # the user's hooks first, kept
    assert (settings.stat().st_mode & 0o777) == 0o640
    assert (gemini_home / "settings.json.ovhooks.bak").read_bytes() == before[str(settings)]
    assert run_cli("uninstall", "gemini").exit_code == 0
    assert _files(gemini_home) == before


def test_install_twice_changes_nothing_the_second_time(gemini_home: Path) -> None:
    assert run_cli("install", "gemini", "--exe", EXE).exit_code == 0
    once = _files(gemini_home)
    _code, second = run_json("install", "gemini", "--exe", EXE)
    assert second["hooks_file"]["action"] == "unchanged"
    assert _files(gemini_home) == once


def test_each_hook_is_named_in_milliseconds_and_the_guard_matches_file_tools_only(
    gemini_home: Path,
) -> None:
    assert run_cli("install", "gemini", "--exe", EXE).exit_code == 0
    hooks = json.loads((gemini_home / "settings.json").read_text())["hooks"]
    for event, command, matcher, seconds in hostconfig.HOOK_TABLE["gemini"]:
        ours = [g for g in hooks[event] if "ovhooks" in json.dumps(g)]
        assert len(ours) == 1, event
        handler = ours[0]["hooks"][0]
        assert handler == {
            "name": f"ovhooks-{command}",
            "type": "command",
            "command": launch.command_line(EXE, command, "gemini"),
            "timeout": seconds * 1000,
        }
        assert ours[0].get("matcher") == matcher
    guard = re.compile(hooks["BeforeTool"][-1]["matcher"])
    for tool in ("read_file", "read_many_files", "list_directory", "glob", "grep_search"):
        assert guard.search(tool), tool
    for tool in ("run_shell_command", "write_file", "mcp_x_read_file", "read_file2"):
        assert not guard.search(tool), tool


def test_a_fresh_home_is_created_and_removed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "fresh"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.chdir(tmp_path)
    _code, created = run_json("install", "gemini", "--exe", EXE)
    assert created["hooks_file"]["action"] == "created"
    assert (home / ".gemini" / "settings.json").is_file()
    assert run_cli("uninstall", "gemini").exit_code == 0
    assert not home.exists()


def test_geminis_old_switches_inside_hooks_are_kept(gemini_home: Path) -> None:
    settings = gemini_home / "settings.json"
    doc = json.loads(settings.read_text())
    doc["hooks"] = {"enabled": True, "disabled": ["x"], **doc["hooks"]}
    settings.write_text(json.dumps(doc, indent=2) + "\n")
    before = settings.read_bytes()
    assert run_cli("install", "gemini", "--exe", EXE).exit_code == 0
    installed = json.loads(settings.read_text())["hooks"]
    assert installed["enabled"] is True and installed["disabled"] == ["x"]
    assert run_cli("uninstall", "gemini").exit_code == 0
    assert settings.read_bytes() == before


def test_a_settings_file_with_comments_is_refused_untouched(gemini_home: Path) -> None:
    settings = gemini_home / "settings.json"
    settings.write_text('// mine\n{"general": {}}\n')
    before = settings.read_bytes()
    result = run_cli("install", "gemini", "--exe", EXE)
    assert result.exit_code != 0 and "holds comments" in " ".join(result.output.split())
    assert settings.read_bytes() == before


def test_hooks_switched_off_are_named_not_switched_on(gemini_home: Path) -> None:
    settings = gemini_home / "settings.json"
    doc = json.loads(settings.read_text())
    doc["hooksConfig"] = {"enabled": False}
    settings.write_text(json.dumps(doc))
    _code, result = run_json("install", "gemini", "--exe", EXE)
    assert "hooksConfig.enabled is false" in result["hooks_file"]["fix"]
    assert json.loads(settings.read_text())["hooksConfig"] == {"enabled": False}


def _gemini_check(*extra: str) -> dict[str, object]:
    _code, doc = run_json("doctor", "--host", "gemini", *extra)
    return next(c for c in doc["checks"] if c["name"] == "hooks:gemini")


def test_doctor_sees_the_hooks_and_what_keeps_gemini_from_running_them(
    gemini_home: Path, tmp_path: Path
) -> None:
    assert _gemini_check()["status"] == "fail"  # not installed yet
    assert run_cli("install", "gemini").exit_code == 0
    untrusted = _gemini_check()
    assert untrusted["status"] == "warn" and "not a trusted folder" in str(untrusted["summary"])
    rules = {str(tmp_path / "project"): "TRUST_FOLDER"}
    (gemini_home / "trustedFolders.json").write_text(json.dumps(rules))
    assert _gemini_check()["status"] == "ok"
    settings = gemini_home / "settings.json"
    doc = json.loads(settings.read_text())
    doc["hooksConfig"] = {"disabled": ["ovhooks-stop"]}
    settings.write_text(json.dumps(doc))
    assert _gemini_check()["status"] == "fail"
    doc["hooksConfig"] = {"enabled": False}
    settings.write_text(json.dumps(doc))
    off = _gemini_check()
    assert off["status"] == "fail" and "hooksConfig.enabled" in str(off["summary"])


def test_status_lists_every_host_installed_or_not(gemini_home: Path) -> None:
    assert run_cli("install", "gemini", "--exe", EXE).exit_code == 0
    _code, doc = run_json("status", "--offline")
    hosts = {row["host"]: row for row in doc["hosts"]}
    assert set(hosts) == set(hostconfig.HOSTS)
    assert hosts["gemini"]["installed"] == ["user"] and hosts["gemini"]["label"] == "Gemini CLI"
    assert hosts["gemini"]["last_capture_at"] is None and hosts["gemini"]["sessions"] == 0
    assert hosts["codex"]["installed"] == []


def test_project_scope_goes_to_the_repositorys_gemini_settings(
    gemini_home: Path, tmp_path: Path
) -> None:
    _code, result = run_json("install", "gemini", "--scope", "project", "--exe", "ovhooks")
    target = tmp_path / "project" / ".gemini" / "settings.json"
    assert result["hooks_file"]["path"] == str(target) and target.is_file()
    commands = {h[3] for h in our_handlers(json.loads(target.read_text()))}
    assert launch.command_line("ovhooks", "stop", "gemini") in commands
    assert run_cli("uninstall", "gemini", "--scope", "project").exit_code == 0
    assert not (tmp_path / "project" / ".gemini").exists()


def test_doctor_compares_the_last_capture_with_geminis_own_last_use(
    gemini_home: Path,
) -> None:
    from ovhooks.commands.doctor.activity import check_capture_activity, host_last_used

    env = {"GEMINI_CLI_HOME": str(gemini_home.parent)}
    assert host_last_used("gemini", env) == 0
    chats = gemini_home / "tmp" / "project" / "chats"
    chats.mkdir(parents=True)
    shutil.copyfile(FIXTURES / "session-transcript.jsonl", chats / "session-x.jsonl")
    used = host_last_used("gemini", env)
    assert used == (chats / "session-x.jsonl").stat().st_mtime
    verdict = check_capture_activity("gemini", str(gemini_home / "no-state"), env, used + 60)
    assert verdict["status"] == "warn" and "Gemini CLI was used" in verdict["summary"]
