"""``doctor``, ``install`` and ``uninstall`` as users see them, pinned before those commands
became packages (issue 17): help texts, option declarations, and the human and JSON output of
one scripted set-up, must match what ``tests/fixtures/setup_surface/`` recorded.

Temporary paths are written as ``<TMP>``. After an intended change, re-record with
``python -m tests.commands.test_setup_surface`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main

from ovhooks.cli import app
from tests.support.cli import run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "setup_surface"
COMMANDS = ("doctor", "install", "uninstall")
PLAIN = {"COLUMNS": "100", "TERM": "dumb"}


def _declaration(name: str) -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    command = group.commands[name]
    params = [
        {
            "name": p.name,
            "opts": list(p.opts),
            "type": re.sub(r"\s*\|\s*None$", "", p.bare_type()),
            "required": p.required,
            "default": p.default,
            "is_flag": bool(getattr(p, "is_flag", False)),
            "help": getattr(p, "help", None),
        }
        for p in command.params
    ]
    panel = getattr(command, "rich_help_panel", None)
    return {"help": command.help, "panel": panel, "params": params}


def _scripted_run(tmp: Path) -> list[tuple[str, int, str]]:
    """(argv, exit code, stdout) of a set-up from scratch: install both hosts, doctor on the
    local store, uninstall both; every path lives under ``tmp``."""
    codex, claude, project = tmp / "codex", tmp / "claude", tmp / "project"
    for folder in (codex, claude / "x", project / ".git"):
        folder.mkdir(parents=True)
    (codex / "config.toml").write_text('model = "m"\n\n[features]\nweb_search = true\n')
    (project / ".ovhooks.toml").write_text('[project]\nid = "acme-app"\n')
    env = {
        **PLAIN,
        "CODEX_HOME": str(codex),
        "CLAUDE_CONFIG_DIR": str(claude),
        "OVHOOKS_BACKEND": "local",
        "OVHOOKS_STATE_DIR": str(tmp / "state"),
        "OVHOOKS_DATA_DIR": str(tmp / "data"),
    }
    steps = [
        ("install", "codex", "--exe", "/opt/ov/bin/ovhooks", "--dry-run"),
        ("install", "codex", "--exe", "/opt/ov/bin/ovhooks"),
        ("install", "claude", "--exe", "/opt/ov/bin/ovhooks", "--json"),
        ("install", "claude", "--scope", "project", "--exe", "ovhooks"),
        ("doctor",),
        ("doctor", "--host", "claude", "--json"),
        ("doctor", "--host", "nothing"),
        ("uninstall", "claude", "--scope", "project"),
        ("uninstall", "codex", "--json"),
        ("uninstall", "claude"),
        ("install", "nothing", "--json"),
    ]
    out = []
    cwd = os.getcwd()
    os.chdir(project)
    try:
        for argv in steps:
            result = run_cli(*argv, env=env)
            out.append((" ".join(argv), result.exit_code, result.stdout + result.stderr))
    finally:
        os.chdir(cwd)
    return out


def _normalized(text: str, tmp: Path) -> str:
    from ovhooks.project import resolve

    path_peer = resolve(str(tmp / "project")).legacy_peer  # derived from the temporary path
    text = text.replace(path_peer, "<PATH-PEER>") if path_peer else text
    text = text.replace(str(tmp), "<TMP>").replace(os.path.realpath(tmp), "<TMP>")
    # The embedding service's socket moves to a short path when the state dir's is too long
    # for a unix socket (a deep temp dir), so where it lies depends on the run, not on ovhooks.
    text = re.sub(r'"socket": "[^"]*"', '"socket": "<SOCKET>"', text)
    from ovhooks.hosts.launch import MCP_LAUNCHER  # inside the package: where the clone is

    text = text.replace(MCP_LAUNCHER, "<PACKAGE>/hosts/mcp_launch.sh")
    home = os.environ.get("HOME", "")  # the hosts found (or not) under the test's own HOME
    return text.replace(home, "<HOME>") if len(home) > 1 else text


def surface(tmp: Path) -> dict[str, str]:
    """File name -> recorded content."""
    files: dict[str, str] = {}
    for name in COMMANDS:
        result = run_cli(name, "--help", env=PLAIN)
        files[f"{name}.help.txt"] = result.stdout
        files[f"{name}.json"] = json.dumps(_declaration(name), indent=2, sort_keys=True) + "\n"
    lines = []
    for argv, code, text in _scripted_run(tmp):
        lines.append(f"$ ovhooks {argv}  # exit {code}\n{_normalized(text, tmp)}")
    files["session.txt"] = "\n".join(lines)
    return files


@pytest.fixture(scope="module")
def recorded() -> dict[str, str]:
    if not FIXTURES.is_dir():
        pytest.fail(f"nothing recorded in {FIXTURES}")
    return {p.name: p.read_text(encoding="utf-8") for p in FIXTURES.iterdir()}


@pytest.fixture
def current(tmp_path: Path) -> dict[str, str]:
    return surface(tmp_path / "run")


@pytest.mark.parametrize("name", COMMANDS)
def test_help_and_declaration_unchanged(
    name: str, recorded: dict[str, str], current: dict[str, str]
) -> None:
    assert current[f"{name}.help.txt"] == recorded[f"{name}.help.txt"]
    assert json.loads(current[f"{name}.json"]) == json.loads(recorded[f"{name}.json"])


def test_human_and_json_output_unchanged(recorded: dict[str, str], current: dict[str, str]) -> None:
    assert current["session.txt"] == recorded["session.txt"]


def _record() -> None:  # pragma: no cover (run by hand to re-record)
    import tempfile

    scratch = Path(tempfile.mkdtemp(prefix="ovhooks-setup-surface-"))
    os.environ["HOME"] = str(scratch / "home")
    os.environ["OVHOOKS_CONFIG"] = str(scratch / "none.toml")
    os.environ["OPENVIKING_CLI_CONFIG_FILE"] = str(scratch / "ovcli.conf")
    (scratch / "none.toml").write_text("")
    for var in list(os.environ):
        if var.startswith(("OVHOOKS_", "OPENVIKING_", "CODEX_", "CLAUDE_")) and var not in (
            "OVHOOKS_CONFIG",
            "OPENVIKING_CLI_CONFIG_FILE",
        ):
            del os.environ[var]
    os.environ["OVHOOKS_SEMANTIC"] = "off"  # as tests/conftest.py sets it for every test
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, content in surface(scratch / "run").items():
        (FIXTURES / name).write_text(content, encoding="utf-8")
    sys.stdout.write(f"recorded {len(list(FIXTURES.iterdir()))} files in {FIXTURES}\n")


if __name__ == "__main__":  # pragma: no cover
    _record()
