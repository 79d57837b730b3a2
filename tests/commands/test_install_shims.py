"""install / uninstall on Pi (extension file) and OpenCode (plugin file)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from ovhooks.commands.install.shim_file import MARKER, command_argv, render, template
from tests.support.cli import run_cli, run_json

EXE = "/opt/ovhooks venv/bin/ovhooks"
SHIMS = {"pi": "pi_extension.ts", "opencode": "opencode_plugin.js"}


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    pi = tmp_path / "pi-agent"
    config = tmp_path / "xdg-config"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(pi))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    monkeypatch.chdir(project)
    return {
        "pi": pi / "extensions" / "ovhooks.ts",
        "opencode": config / "opencode" / "plugins" / "ovhooks.js",
        "root": tmp_path,
        "project": project,
    }


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _dirs(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*") if p.is_dir())


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_install_writes_the_shim_with_this_command_and_uninstall_leaves_nothing(
    homes: dict[str, Path], host: str
) -> None:
    before_files, before_dirs = _snapshot(homes["root"]), _dirs(homes["root"])
    code, doc = run_json("install", host, "--exe", f"'{EXE}'")
    assert code == 0, doc
    assert doc["hooks_file"]["action"] == "created"
    text = homes[host].read_text(encoding="utf-8")
    assert json.dumps([EXE]) in text and MARKER in text
    assert run_json("install", host, "--exe", f"'{EXE}'")[1]["hooks_file"]["action"] == "unchanged"
    code, doc = run_json("uninstall", host)
    assert code == 0 and doc["hooks_file"]["action"] == "removed", doc
    assert _snapshot(homes["root"]) == before_files
    assert _dirs(homes["root"]) == before_dirs


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_a_users_file_of_the_same_name_comes_back_byte_for_byte(
    homes: dict[str, Path], host: str
) -> None:
    target = homes[host]
    target.parent.mkdir(parents=True)
    target.write_bytes(b"// my own file\r\nexport default 1;\n")
    target.chmod(0o640)
    before = _snapshot(homes["root"])
    code, doc = run_json("install", host, "--exe", EXE)
    assert code == 0 and doc["hooks_file"]["action"] == "replaced", doc
    backup = Path(doc["hooks_file"]["backup"])
    assert backup.read_bytes() == before[str(target)]
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    run_cli("uninstall", host)
    assert _snapshot(homes["root"]) == before
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_uninstall_never_removes_a_file_that_is_not_ovhooks(
    homes: dict[str, Path], host: str
) -> None:
    target = homes[host]
    target.parent.mkdir(parents=True)
    target.write_text("export default function mine() {}\n")
    code, doc = run_json("uninstall", host)
    assert code == 0 and doc["hooks_file"]["action"] == "unchanged"
    assert target.read_text() == "export default function mine() {}\n"


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_an_older_shim_is_updated_in_place_without_a_backup(
    homes: dict[str, Path], host: str
) -> None:
    run_cli("install", host, "--exe", "/old/ovhooks")
    _code, doc = run_json("install", host, "--exe", f"'{EXE}'")
    assert doc["hooks_file"] == {"path": str(homes[host]), "action": "updated", "backup": None}
    assert json.dumps([EXE]) in homes[host].read_text()
    assert not Path(str(homes[host]) + ".ovhooks.bak").exists()


@pytest.mark.parametrize(
    ("host", "where"),
    [("pi", ".pi/extensions/ovhooks.ts"), ("opencode", ".opencode/plugins/ovhooks.js")],
)
def test_project_scope(homes: dict[str, Path], host: str, where: str) -> None:
    code, doc = run_json("install", host, "--scope", "project", "--exe", EXE)
    assert code == 0 and doc["hooks_file"]["path"] == str(homes["project"] / where)
    run_cli("uninstall", host, "--scope", "project")
    assert not (homes["project"] / where.split("/", maxsplit=1)[0]).exists()


def test_dry_run_writes_nothing(homes: dict[str, Path]) -> None:
    before = _snapshot(homes["root"])
    code, doc = run_json("install", "pi", "--dry-run")
    assert code == 0 and doc["hooks_file"]["action"] == "created"
    assert _snapshot(homes["root"]) == before


def test_trust_is_refused_for_shim_hosts(homes: dict[str, Path]) -> None:
    for host in ("pi", "opencode"):
        assert run_cli("install", host, "--trust").exit_code != 0


@pytest.mark.parametrize(
    ("exe", "argv"),
    [
        ("/usr/bin/ovhooks", ["/usr/bin/ovhooks"]),
        ("'/opt/my venv/bin/ovhooks'", ["/opt/my venv/bin/ovhooks"]),
        ("/usr/bin/python3 -m ovhooks", ["/usr/bin/python3", "-m", "ovhooks"]),
        ("'unclosed", ["'unclosed"]),
        ("", ["ovhooks"]),
    ],
)
def test_the_command_becomes_the_argv_the_shim_spawns(exe: str, argv: list[str]) -> None:
    assert command_argv(exe) == argv


@pytest.mark.parametrize("host", ["pi", "opencode"])
def test_rendering_changes_only_the_command_line(host: str) -> None:
    shipped = template(SHIMS[host]).splitlines()
    rendered = render(template(SHIMS[host]), """'/x/"quoted"/ovhooks'""").splitlines()
    changed = [(a, b) for a, b in zip(shipped, rendered, strict=True) if a != b]
    assert len(changed) == 1
    assert json.dumps(['/x/"quoted"/ovhooks']) in changed[0][1]


@pytest.mark.skipif(not os.path.exists("/usr/bin/node"), reason="node not installed")
def test_the_opencode_plugin_is_valid_javascript(tmp_path: Path) -> None:
    path = tmp_path / "plugin.mjs"
    path.write_text(render(template(SHIMS["opencode"]), EXE))
    proc = subprocess.run(
        ["node", "--check", str(path)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
