"""install / uninstall on copies of real host config files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ovhooks.commands import hostconfig
from ovhooks.commands.install.codex_toml import enable_hooks_feature, hooks_feature
from ovhooks.commands.install.hooks_json import merge_hooks, our_handlers, remove_hooks
from ovhooks.hosts import launch
from tests.support.cli import ENVELOPE, OPT_STR, check_schema, run_cli, run_json

REPO = Path(__file__).resolve().parents[2]
EXE = "/opt/ovhooks-venv/bin/ovhooks"

USER_HOOKS = {
    # a user's own hooks, including one whose path merely mentions ovhooks
    "Stop": [{"hooks": [{"type": "command", "command": "/home/u/bin/notify-ovhooks.sh stop"}]}],
    "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}],
}


@pytest.fixture
def homes(tmp_path: Path, host_samples: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    codex = tmp_path / "codex-home"
    claude = tmp_path / "claude-config"
    project = tmp_path / "project"
    for d in (codex, claude, project / ".git"):
        d.mkdir(parents=True)
    shutil.copyfile(host_samples / "codex" / "config-hooks.json", codex / "hooks.json")
    shutil.copyfile(host_samples / "codex" / "config.toml", codex / "config.toml")
    shutil.copyfile(host_samples / "claude" / "settings.json", claude / "settings.json")
    for f in (codex / "hooks.json", codex / "config.toml", claude / "settings.json"):
        f.chmod(0o644)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.chdir(project)
    return {"codex": codex, "claude": claude, "project": project}


def _snapshot(*dirs: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for d in dirs for p in sorted(d.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_install_then_uninstall_restores_bytes(homes: dict[str, Path], host: str) -> None:
    before = _snapshot(homes["codex"], homes["claude"])
    result = run_cli("install", host, "--exe", EXE)
    assert result.exit_code == 0, result.output
    target = homes[host] / ("hooks.json" if host == "codex" else "settings.json")
    doc = json.loads(target.read_text())
    assert {h[0] for h in our_handlers(doc)} == {e for e, *_ in hostconfig.HOOK_TABLE[host]}
    assert (target.parent / (target.name + ".ovhooks.bak")).read_bytes() == before[str(target)]
    result = run_cli("uninstall", host)
    assert result.exit_code == 0, result.output
    assert _snapshot(homes["codex"], homes["claude"]) == before


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_user_hooks_survive_and_keep_their_positions(homes: dict[str, Path], host: str) -> None:
    target = homes[host] / ("hooks.json" if host == "codex" else "settings.json")
    doc = json.loads(target.read_text())
    for event, groups in USER_HOOKS.items():
        doc["hooks"].setdefault(event, []).extend(groups)
    target.write_text(json.dumps(doc, indent=4) + "\n")
    original = target.read_bytes()
    assert run_cli("install", host, "--exe", EXE).exit_code == 0
    installed = json.loads(target.read_text())
    for event, groups in doc["hooks"].items():
        assert installed["hooks"][event][: len(groups)] == groups  # user's groups come first
    assert "/home/u/bin/notify-ovhooks.sh stop" in target.read_text()
    assert run_cli("uninstall", host).exit_code == 0
    assert target.read_bytes() == original


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_install_twice_equals_install_once(homes: dict[str, Path], host: str) -> None:
    assert run_cli("install", host, "--exe", EXE).exit_code == 0
    once = _snapshot(homes["codex"], homes["claude"])
    code, doc = run_json("install", host, "--exe", EXE)
    assert code == 0 and doc["hooks_file"]["action"] == "unchanged"
    assert _snapshot(homes["codex"], homes["claude"]) == once


def test_upgrade_replaces_stale_entries_in_place(homes: dict[str, Path]) -> None:
    assert run_cli("install", "codex", "--exe", "/old/venv/bin/ovhooks").exit_code == 0
    assert run_cli("install", "codex", "--exe", EXE).exit_code == 0
    doc = json.loads((homes["codex"] / "hooks.json").read_text())
    commands = [h[3] for h in our_handlers(doc)]
    assert len(commands) == len(hostconfig.HOOK_TABLE["codex"])
    assert {launch.executable_of(c) for c in commands} == {EXE}


@pytest.mark.parametrize("host", ["codex", "claude"])
def test_project_scope_creates_and_removes_the_file(homes: dict[str, Path], host: str) -> None:
    code, doc = run_json("install", host, "--scope", "project", "--exe", EXE)
    assert code == 0
    sub = ".codex/hooks.json" if host == "codex" else ".claude/settings.json"
    path = homes["project"] / sub
    assert doc["hooks_file"] == {"path": str(path), "action": "created", "backup": None}
    assert our_handlers(json.loads(path.read_text()))
    assert run_cli("uninstall", host, "--scope", "project").exit_code == 0
    assert not path.exists()


@pytest.mark.parametrize(
    ("toml", "expected_state"),
    [
        ('model = "x"\n\n[features]\nhooks = false # off for now\n', "off"),
        ('model = "x"\n\n[features]\nother = 1\n', "absent"),
        ('model = "x"\n', "absent"),
        ("", "absent"),
        ('model = "x"\nfeatures.hooks = false\n', "off"),
        ("[features]\ncodex_hooks = false\n", "alias-off"),
    ],
)
def test_codex_feature_flag_switched_on_and_back(
    homes: dict[str, Path], toml: str, expected_state: str
) -> None:
    config = homes["codex"] / "config.toml"
    config.write_text(toml)
    assert hooks_feature(toml) == expected_state
    assert run_cli("install", "codex", "--exe", EXE).exit_code == 0
    assert hooks_feature(config.read_text()) == "on"
    assert ('model = "x"' in config.read_text()) == ('model = "x"' in toml)
    assert run_cli("uninstall", "codex").exit_code == 0
    assert config.read_bytes() == toml.encode()


def test_missing_config_toml_is_created_then_removed(homes: dict[str, Path]) -> None:
    config = homes["codex"] / "config.toml"
    config.unlink()
    assert run_cli("install", "codex", "--exe", EXE).exit_code == 0
    assert hooks_feature(config.read_text()) == "on"
    assert run_cli("uninstall", "codex").exit_code == 0
    assert not config.exists()


def test_feature_flag_kept_when_config_changed_since(homes: dict[str, Path]) -> None:
    config = homes["codex"] / "config.toml"
    config.write_text("[features]\nhooks = false\n")
    run_cli("install", "codex", "--exe", EXE, "--no-mcp")  # the tools: test_install_mcp
    config.write_text(config.read_text() + '\n[hooks.state."x:stop:0:0"]\ntrusted_hash = "h"\n')
    code, doc = run_json("uninstall", "codex")
    assert code == 0 and doc["config_toml"]["action"] == "unchanged"
    assert hooks_feature(config.read_text()) == "on"


def test_enable_keeps_comments_and_layout() -> None:
    text = "# my config\n[features]  # flags\nhooks = false  # was off\n\n[other]\nhooks = false\n"
    new, change = enable_hooks_feature(text)
    assert change
    assert new == text.replace("hooks = false  # was off", "hooks = true  # was off")


def test_invalid_json_is_refused_with_a_fix(homes: dict[str, Path]) -> None:
    (homes["codex"] / "hooks.json").write_text("{not json")
    code, doc = run_json("install", "codex", "--exe", EXE)
    assert code == 1
    assert "not valid JSON" in doc["error"]["message"] and doc["error"]["fix"]
    assert (homes["codex"] / "hooks.json").read_text() == "{not json"


def test_a_host_file_nested_too_deeply_is_refused_like_invalid_json(
    homes: dict[str, Path],
) -> None:
    deep = '{"a": ' + "[" * 1000 + "]" * 1000 + "}"
    (homes["claude"] / "settings.json").write_text(deep)
    for command in (("install", "claude", "--exe", EXE), ("uninstall", "claude")):
        code, doc = run_json(*command)
        assert code == 1 and "nested too deeply" in doc["error"]["message"], doc
    assert (homes["claude"] / "settings.json").read_text() == deep
    for looked in (("status", "--offline"), ("doctor", "--host", "claude")):
        result = run_cli(*looked)
        assert result.exit_code != 70 and "a bug in ovhooks" not in result.output, result.output


@pytest.mark.parametrize(
    "damage",
    [
        b'model = "\xff"\n',  # not UTF-8
        b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n",  # nested too deeply for the parser
    ],
)
def test_a_config_toml_codex_cannot_use_stops_install_and_uninstall_before_any_write(
    homes: dict[str, Path], damage: bytes
) -> None:
    (homes["codex"] / "config.toml").write_bytes(damage)
    before = _snapshot(homes["codex"])
    code, doc = run_json("install", "codex", "--exe", EXE)
    if damage.startswith(b"model"):
        assert code == 1 and "not UTF-8" in doc["error"]["message"], doc
        assert "UTF-8" in doc["error"]["fix"]
    else:  # it reads as text: the feature flag is left to the user, as for any bad TOML
        assert code == 0 and doc["config_toml"]["action"] == "manual", doc
        assert "nested too deeply" in doc["config_toml"]["detail"]
    if code == 1:
        assert _snapshot(homes["codex"]) == before
    code, doc = run_json("uninstall", "codex")
    assert code in (0, 1), doc
    if damage.startswith(b"model"):
        assert code == 1 and _snapshot(homes["codex"]) == before
    result = run_cli("doctor", "--host", "codex")
    assert result.exit_code != 70 and "Traceback" not in result.output, result.output


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("ovhooks stop --host codex", True),
        ("/a b/venv/bin/ovhooks session-start --host claude", True),  # broken quoting: still ours
        ("'/a b/venv/bin/ovhooks' session-start --host claude", True),
        ('"C:\\\\Py\\\\Scripts\\\\ovhooks.exe" stop --host codex', True),
        ("/usr/bin/python3 -m ovhooks pre-compact", True),
        ("ovhooks status", False),
        ("/home/u/bin/notify-ovhooks.sh stop", False),
        ("python3 /tmp/e2e-probe/hook_log.py codex Stop", False),
        (None, False),
    ],
)
def test_recognises_only_ovhooks_hook_commands(command: object, ours: bool) -> None:
    assert hostconfig.is_ovhooks_command(command) is ours


def test_merge_and_remove_are_inverse_on_empty_doc() -> None:
    wanted = hostconfig.desired_groups("claude", EXE)
    merged = merge_hooks({"model": "x"}, wanted)
    assert merge_hooks(merged, wanted) == merged
    assert remove_hooks(merged) == {"model": "x"}


def test_executable_is_next_to_the_interpreter() -> None:
    exe = hostconfig.hook_executable()
    assert "shims" not in exe
    assert exe.endswith(("ovhooks", "-m ovhooks"))


@pytest.mark.parametrize(
    ("host", "name"), [("codex", "hooks.json"), ("claude", "hooks.claude.json")]
)
def test_table_matches_the_shipped_registration(host: str, name: str) -> None:
    path = REPO / name
    if not path.exists():
        pytest.skip(f"{name} not in the repository yet")
    shipped = json.loads(path.read_text())
    built = hostconfig.desired_groups(host, "ovhooks")
    assert all(len(groups) == 1 for groups in shipped["hooks"].values())
    assert {e: groups[0] for e, groups in shipped["hooks"].items()} == built
    assert list(shipped["hooks"]) == list(built)


INSTALL_SCHEMA = {
    **ENVELOPE,
    "host": str,
    "scope": str,
    "dry_run": bool,
    "executable": str,
    "events": [str],
    "next_steps": [str],
    "hooks_file": {"path": str, "action": str, "backup": OPT_STR},
    "config_toml": (dict, type(None)),
}


def test_install_and_uninstall_json_schema(homes: dict[str, Path]) -> None:
    code, doc = run_json("install", "codex", "--exe", EXE, "--dry-run")
    assert code == 0
    check_schema(doc, INSTALL_SCHEMA)
    check_schema(doc["config_toml"], {"path": str, "action": str, "detail": str})
    assert doc["hooks_file"]["action"] == "updated" and doc["dry_run"] is True
    code, doc = run_json("uninstall", "claude")
    assert code == 0
    check_schema(
        doc,
        {
            **ENVELOPE,
            "host": str,
            "scope": str,
            "dry_run": bool,
            "hooks_file": {"path": str, "action": str, "backup": OPT_STR},
        },
    )
    code, doc = run_json("install", "nothing")
    assert code == 2 and doc["error"]["code"] == "usage"
