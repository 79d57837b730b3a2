"""The command-line surface is pinned: ``--help`` of the app and of every command, and each
parameter's declaration, must match what ``tests/fixtures/cli_surface/`` recorded.

Recorded before commands moved from ``register()`` closures to module-level functions
(issue 17), so that refactor, and any later one, is proven not to change what users see.
After an intended change to a command, re-record with
``python -m tests.commands.test_cli_surface`` and review the diff.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main

from ovhooks.cli import app
from tests.support.cli import run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cli_surface"
WIDTH = "100"


def _group() -> Any:
    group: Any = typer.main.get_command(app)
    assert hasattr(group, "commands"), group
    return group


def command_names() -> list[str]:
    return list(_group().commands)


def help_text(*argv: str) -> str:
    result = run_cli(*argv, "--help", env={"COLUMNS": WIDTH, "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    return str(result.stdout)


def _default(value: object) -> object:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_default(v) for v in value]
    return repr(value)


def _value_type(annotation: str) -> str:
    # The value's type, as the option converts it: ``str | None`` on an option whose default
    # is None is the honest annotation of the same ``str`` option (issue 17), not a change.
    return re.sub(r"\s*\|\s*None$", "", annotation)


def declaration(name: str) -> dict[str, Any]:
    """What Click sees of a command: help, panel, and every parameter's full declaration."""
    command: Any = _group().commands[name]
    params = []
    for p in command.params:
        params.append(
            {
                "name": p.name,
                "kind": type(p).__name__,
                "opts": list(p.opts),
                "secondary_opts": list(p.secondary_opts),
                "type": _value_type(p.bare_type()),
                "required": p.required,
                "default": _default(p.default),
                "nargs": p.nargs,
                "multiple": p.multiple,
                "is_flag": bool(getattr(p, "is_flag", False)),
                "help": getattr(p, "help", None),
                "hidden": bool(getattr(p, "hidden", False)),
            }
        )
    return {
        "name": name,
        "help": command.help,
        "short_help": command.short_help,
        "panel": getattr(command, "rich_help_panel", None),
        "hidden": command.hidden,
        "params": params,
    }


def surface() -> dict[str, str]:
    """File name -> recorded content, for the app and every command."""
    files = {"ovhooks.help.txt": help_text()}
    order = command_names()
    files["commands.json"] = json.dumps(order, indent=2) + "\n"
    for name in order:
        files[f"{name}.help.txt"] = help_text(name)
        files[f"{name}.json"] = json.dumps(declaration(name), indent=2, sort_keys=True) + "\n"
    return files


@pytest.fixture(scope="module")
def recorded() -> dict[str, str]:
    if not FIXTURES.is_dir():
        pytest.fail(f"no recorded CLI surface in {FIXTURES}")
    return {p.name: p.read_text(encoding="utf-8") for p in FIXTURES.iterdir()}


def test_the_commands_and_their_order_are_unchanged(recorded: dict[str, str]) -> None:
    assert json.loads(recorded["commands.json"]) == command_names()


def test_the_app_help_is_unchanged(recorded: dict[str, str]) -> None:
    assert help_text() == recorded["ovhooks.help.txt"]


@pytest.mark.parametrize("name", command_names())
def test_a_command_help_is_unchanged(name: str, recorded: dict[str, str]) -> None:
    assert help_text(name) == recorded[f"{name}.help.txt"]


@pytest.mark.parametrize("name", command_names())
def test_a_command_declaration_is_unchanged(name: str, recorded: dict[str, str]) -> None:
    assert declaration(name) == json.loads(recorded[f"{name}.json"])


def test_nothing_recorded_is_left_without_a_command(recorded: dict[str, str]) -> None:
    assert set(recorded) == set(surface())


def _record() -> None:  # pragma: no cover (run by hand to re-record)
    import os
    import tempfile

    # The same isolation the suite's autouse fixture gives: no real home, no user settings.
    scratch = tempfile.mkdtemp(prefix="ovhooks-surface-")
    os.environ["HOME"] = scratch
    os.environ["OVHOOKS_STATE_DIR"] = os.path.join(scratch, "state")
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for old in FIXTURES.iterdir():
        old.unlink()
    for file_name, content in surface().items():
        (FIXTURES / file_name).write_text(content, encoding="utf-8")
    sys.stdout.write(f"recorded {len(list(FIXTURES.iterdir()))} files in {FIXTURES}\n")


def test_help_names_every_host_and_the_version_option() -> None:
    """The hooks' --host help is built from the registry (it once named four of eight), and
    ``--version`` answers as ``version`` does."""
    from ovhooks import __version__
    from ovhooks.hosts.registry import HOSTS

    text = " ".join(help_text("stop").split())
    assert all(host in text for host in HOSTS), text
    result = run_cli("--version")
    assert result.exit_code == 0 and result.stdout.strip() == __version__


if __name__ == "__main__":  # pragma: no cover
    _record()
