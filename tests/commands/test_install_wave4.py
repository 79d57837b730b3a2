"""``ovhooks install|uninstall`` for GitHub Copilot CLI, Qwen Code and Factory Droid: the hooks
and the memory tools' server in each host's own files, the user's content kept, and every
byte back after uninstall; then ``doctor`` and ``status`` on them."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from ovhooks.commands import hostconfig
from ovhooks.commands.doctor.hooks import check_host
from ovhooks.commands.install import mcp_json
from ovhooks.commands.install.hooks_json import our_handlers
from ovhooks.hosts.launch import executable_of
from tests.support.cli import run_cli, run_json

HOSTS = ("copilot", "qwen", "droid")


def _exe(tmp_path: Path) -> str:
    exe = tmp_path / "bin" / "ovhooks"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    return str(exe)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    return home


USER_HOOK = {"hooks": [{"type": "command", "command": "my-own-hook", "timeout": 3}]}
USER_SERVER = {"command": "my-server", "args": ["--x"]}


def _seed(host: str, home: Path) -> Path:
    """The host's folder as a user had it: settings, a hook and an MCP server of their own."""
    if host == "copilot":
        folder = home / ".copilot"
        _write(folder / "settings.json", {"model": "x", "hooks": {"Stop": [USER_HOOK]}})
        _write(folder / "mcp-config.json", {"mcpServers": {"mine": USER_SERVER}})
    elif host == "qwen":
        folder = home / ".qwen"
        _write(
            folder / "settings.json",
            {
                "privacy": {"usageStatisticsEnabled": False},
                "hooks": {"Stop": [USER_HOOK]},
                "mcpServers": {"mine": USER_SERVER},
            },
        )
    else:
        folder = home / ".factory"
        _write(folder / "settings.json", {"customModels": []})
        _write(folder / "hooks.json", {"Stop": [USER_HOOK]})
        _write(folder / "mcp.json", {"mcpServers": {"mine": USER_SERVER}})
    (folder / "settings.json").chmod(0o640)
    return folder


def _write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _hooks_doc(host: str, home: Path) -> dict[str, object]:
    path = Path(hostconfig.hooks_file(host, "user", {"HOME": str(home)}, os.getcwd()))
    doc = json.loads(path.read_text())
    return {"hooks": doc} if host == "droid" else doc


@pytest.mark.parametrize("host", HOSTS)
def test_install_then_uninstall_restores_every_byte(host: str, home: Path, tmp_path: Path) -> None:
    folder = _seed(host, home)
    before = _files(folder)
    exe = _exe(tmp_path)
    _code, result = run_json("install", host, "--exe", exe)
    doc = _hooks_doc(host, home)
    events = {event for event, *_ in hostconfig.HOOK_TABLE[host]}
    assert {h[0] for h in our_handlers(doc)} == events
    for _event, _gi, _hi, command in our_handlers(doc):
        assert executable_of(command) == exe and f" --host {host}" in command
    hooks = doc["hooks"]
    if host != "copilot":  # Copilot's are a file of ovhooks' own; theirs stay in settings.json
        assert isinstance(hooks, dict) and hooks["Stop"][0] == USER_HOOK  # theirs first, kept
    server_file = Path(hostconfig.mcp_file(host, {"HOME": str(home)}))
    servers = json.loads(server_file.read_text())["mcpServers"]
    assert servers["mine"] == USER_SERVER and mcp_json.is_ours(servers["ovhooks"])
    assert servers["ovhooks"]["args"][-1] == "mcp" and result["mcp"][0]["action"] == "updated"
    assert ((folder / "settings.json").stat().st_mode & 0o777) == 0o640
    _code, removed = run_json("uninstall", host)
    assert _files(folder) == before, removed


@pytest.mark.parametrize("host", HOSTS)
def test_a_fresh_home_gets_its_files_and_loses_them_again(
    host: str, home: Path, tmp_path: Path
) -> None:
    _code, created = run_json("install", host, "--exe", _exe(tmp_path))
    assert created["hooks_file"]["action"] == "created"
    assert Path(created["hooks_file"]["path"]).is_file()
    _code, again = run_json("install", host, "--exe", _exe(tmp_path))
    assert again["hooks_file"]["action"] == "unchanged"
    assert again["mcp"][0]["action"] == "unchanged"
    assert run_cli("uninstall", host).exit_code == 0
    assert list(home.rglob("*")) == []  # every file and folder install made is gone


def test_copilot_hooks_are_a_file_of_their_own_without_matchers(home: Path, tmp_path: Path) -> None:
    folder = _seed("copilot", home)
    settings = (folder / "settings.json").read_bytes()
    assert run_cli("install", "copilot", "--exe", _exe(tmp_path)).exit_code == 0
    assert (folder / "settings.json").read_bytes() == settings  # Copilot's own file untouched
    doc = json.loads((folder / "hooks" / "ovhooks.json").read_text())
    for groups in doc["hooks"].values():
        assert all("matcher" not in group for group in groups)  # an empty one voids the file


def test_copilot_home_is_followed(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "chome"))
    assert run_cli("install", "copilot", "--exe", _exe(tmp_path)).exit_code == 0
    assert (tmp_path / "chome" / "hooks" / "ovhooks.json").is_file()
    assert (tmp_path / "chome" / "mcp-config.json").is_file()


def test_qwen_timeouts_are_milliseconds(home: Path, tmp_path: Path) -> None:
    assert run_cli("install", "qwen", "--exe", _exe(tmp_path)).exit_code == 0
    hooks = json.loads((home / ".qwen" / "settings.json").read_text())["hooks"]
    for event, _command, _matcher, seconds in hostconfig.HOOK_TABLE["qwen"]:
        assert hooks[event][-1]["hooks"][0]["timeout"] == seconds * 1000


def test_qwen_says_when_every_hook_is_switched_off(home: Path, tmp_path: Path) -> None:
    _write(home / ".qwen" / "settings.json", {"disableAllHooks": True})
    _code, result = run_json("install", "qwen", "--exe", _exe(tmp_path))
    assert "disableAllHooks" in result["hooks_file"]["fix"]


def test_droid_hooks_stay_keyed_by_event_at_the_top_level(home: Path, tmp_path: Path) -> None:
    assert run_cli("install", "droid", "--exe", _exe(tmp_path)).exit_code == 0
    doc = json.loads((home / ".factory" / "hooks.json").read_text())
    assert "hooks" not in doc and set(doc) == {e for e, *_ in hostconfig.HOOK_TABLE["droid"]}


def test_a_droid_file_with_a_hooks_wrapper_is_refused_with_what_to_do(
    home: Path, tmp_path: Path
) -> None:
    """Droid reads its events at the top level; a user who wrapped them in "hooks" (as other
    hosts want) got "hooks.hooks is not a list"."""
    path = home / ".factory" / "hooks.json"
    _write(path, {"hooks": {"SessionStart": []}})
    before = path.read_bytes()
    code, doc = run_json("install", "droid", "--exe", _exe(tmp_path))
    assert code != 0 and "top level" in doc["error"]["message"], doc
    assert "remove it" in doc["error"]["fix"]
    assert path.read_bytes() == before


def test_a_server_entry_of_the_users_own_is_left_alone(home: Path, tmp_path: Path) -> None:
    _write(home / ".factory" / "mcp.json", {"mcpServers": {"ovhooks": USER_SERVER}})
    before = (home / ".factory" / "mcp.json").read_bytes()
    _code, result = run_json("install", "droid", "--exe", _exe(tmp_path))
    assert result["mcp"][0]["action"] == "manual"
    assert run_cli("uninstall", "droid").exit_code == 0
    assert (home / ".factory" / "mcp.json").read_bytes() == before


@pytest.mark.parametrize("host", HOSTS)
def test_doctor_skips_a_missing_host_fails_a_bare_one_and_passes_after_install(
    host: str, home: Path, tmp_path: Path
) -> None:
    env = {"HOME": str(home)}
    cwd = os.getcwd()
    assert check_host(host, env, cwd)["status"] == "skip"
    Path(hostconfig.config_dir(host, env)).mkdir(parents=True)
    bare = check_host(host, env, cwd)
    assert bare["status"] == "fail" and f"ovhooks install {host}" in bare["fix"]
    exe = _exe(tmp_path)
    assert run_cli("install", host, "--exe", exe).exit_code == 0
    assert check_host(host, env, cwd)["status"] == "ok"
    os.unlink(exe)
    gone = check_host(host, env, cwd)
    assert gone["status"] == "fail" and "no longer exists" in gone["summary"]


@pytest.mark.parametrize("host", HOSTS)
def test_status_lists_the_host_as_installed(host: str, home: Path, tmp_path: Path) -> None:
    assert run_cli("install", host, "--exe", _exe(tmp_path)).exit_code == 0
    _code, status = run_json("status")
    rows = {row["host"]: row for row in status["hosts"]}
    assert rows[host]["installed"] == ["user"]
    assert rows[host]["label"] == hostconfig.HOST_LABELS[host]


@pytest.mark.parametrize("host", HOSTS)
def test_trust_is_refused_and_a_dry_run_writes_nothing(
    host: str, home: Path, tmp_path: Path
) -> None:
    result = run_cli("install", host, "--trust", "--exe", _exe(tmp_path))
    assert result.exit_code != 0 and "--trust is for Codex" in result.output
    folder = _seed(host, home)
    before = _files(folder)
    _code, planned = run_json("install", host, "--dry-run", "--exe", _exe(tmp_path))
    assert planned["hooks_file"]["action"] in ("created", "updated")
    assert _files(folder) == before


@pytest.mark.parametrize("host", ["qwen", "droid"])
def test_uninstall_after_the_user_edited_the_file_takes_out_only_ovhooks(
    host: str, home: Path, tmp_path: Path
) -> None:
    _seed(host, home)
    assert run_cli("install", host, "--exe", _exe(tmp_path), "--no-mcp").exit_code == 0
    path = Path(hostconfig.hooks_file(host, "user", {"HOME": str(home)}, os.getcwd()))
    doc = json.loads(path.read_text())
    hooks = doc if host == "droid" else doc["hooks"]
    hooks["SessionEnd"].insert(0, USER_HOOK)  # the user adds a hook of their own since
    path.write_text(json.dumps(doc, indent=2) + "\n")
    _code, removed = run_json("uninstall", host)
    assert removed["hooks_file"]["action"] == "updated"
    left = json.loads(path.read_text())
    left_hooks = left if host == "droid" else left["hooks"]
    assert our_handlers({"hooks": left_hooks}) == []
    assert left_hooks == {"Stop": [USER_HOOK], "SessionEnd": [USER_HOOK]}
    assert Path(removed["hooks_file"]["backup"]).is_file()  # what was there, kept


def test_an_empty_droid_file_of_ovhooks_alone_is_removed(home: Path, tmp_path: Path) -> None:
    assert run_cli("install", "droid", "--exe", _exe(tmp_path), "--no-mcp").exit_code == 0
    _code, again = run_json("install", "droid", "--exe", _exe(tmp_path), "--no-mcp")
    assert again["hooks_file"]["action"] == "unchanged"
    _code, removed = run_json("uninstall", "droid")
    assert removed["hooks_file"]["action"] == "removed"
    _code, absent = run_json("uninstall", "droid")
    assert absent["hooks_file"]["action"] == "absent"


@pytest.mark.parametrize("host", HOSTS)
def test_doctor_starts_the_registered_memory_tools_server(host: str, home: Path) -> None:
    """The entry install wrote, run as the host would run it: ``ovhooks mcp`` answers."""
    from ovhooks.commands.doctor.mcp import check_mcp

    exe = os.path.join(os.path.dirname(sys.executable), "ovhooks")
    assert run_cli("install", host, "--exe", exe).exit_code == 0
    result = check_mcp(host, dict(os.environ))
    assert result["status"] == "ok", result
    assert result["details"]["config"] == hostconfig.mcp_file(host, {"HOME": str(home)})
    assert run_cli("uninstall", host).exit_code == 0
    assert check_mcp(host, dict(os.environ))["status"] == "skip"


@pytest.mark.parametrize(
    ("host", "file", "key"),
    [
        ("copilot", ".copilot/mcp-config.json", "mcpServers"),
        ("droid", ".factory/mcp.json", "mcpServers"),
        ("qwen", ".qwen/settings.json", "mcpServers"),
    ],
)
def test_a_server_table_of_the_wrong_type_is_left_alone(
    home: Path, tmp_path: Path, host: str, file: str, key: str
) -> None:
    """Replacing ``"mcpServers": []`` with install's object would lose it on uninstall."""
    _write(home / file, {key: [], "x": 1})
    code, result = run_json("install", host, "--exe", _exe(tmp_path))
    assert code == 0, result
    (step,) = [m for m in result["mcp"] if m["path"] == str(home / file)]
    assert step["action"] == "manual" and key in step["fix"]
    assert json.loads((home / file).read_text())[key] == []
    assert run_cli("uninstall", host).exit_code == 0
    assert json.loads((home / file).read_text()) == {key: [], "x": 1}


@pytest.mark.parametrize("host", ["gemini", "qwen", "droid", "claude"])
def test_an_empty_server_table_comes_back_byte_for_byte(
    host: str, home: Path, tmp_path: Path
) -> None:
    """A user's file that held ``"mcpServers": {}``: uninstall took the table install filled
    away once it was empty again, and rewrote the file, so it did not come back as it was."""
    from ovhooks.commands.install import mcp_config

    environ = {"HOME": str(home)}
    path = Path(
        mcp_config.claude_json_path(environ)
        if host == "claude"
        else hostconfig.mcp_file(host, environ)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    text = '{\n  "mcpServers": {},\n  "ui": {"theme": "x"}\n}\n'
    path.write_text(text)
    code, result = run_json("install", host, "--exe", _exe(tmp_path))
    assert code == 0, result
    assert "ovhooks" in json.loads(path.read_text())["mcpServers"]
    code, removed = run_json("uninstall", host)
    assert code == 0, removed
    assert path.read_text() == text, removed
