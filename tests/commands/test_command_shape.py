"""Commands are plain module-level functions that ``cli.py`` wires (issue 17).

A newcomer finds ``ovhooks search`` at ``ovhooks.commands.memory.search``: no command is built
inside a ``register()`` function and ``cli.py`` holds no logic. (The size limits of every
module, commands included, are checked in ``tests/test_architecture.py``.)
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import ovhooks.cli
from ovhooks.cli import app
from ovhooks.hosts.base import EVENT_NAMES

COMMANDS = Path(ovhooks.cli.__file__).resolve().parent / "commands"


def _commands() -> list[object]:
    return [pytest.param(info, id=str(info.name)) for info in app.registered_commands]


def _modules() -> list[object]:
    return [
        pytest.param(path, id=str(path.relative_to(COMMANDS)))
        for path in sorted(COMMANDS.rglob("*.py"))
    ]


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


@pytest.mark.parametrize("info", _commands())
def test_every_command_is_a_module_level_function(info: object) -> None:
    name = getattr(info, "name", None)
    callback = getattr(info, "callback", None)
    assert callback is not None
    assert "<locals>" not in callback.__qualname__, f"{name} is built inside a function"
    module = inspect.getmodule(inspect.unwrap(callback))
    # The commands live in ``commands/``; the viewer and the MCP server, which sit above the
    # commands they use (the layers), keep theirs in their own ``command`` module.
    assert module is not None
    assert module.__name__.startswith("ovhooks.commands.") or module.__name__ in (
        "ovhooks.ui.command",
        "ovhooks.mcp.command",
    )
    assert getattr(module, callback.__name__) is callback


def test_every_hook_command_runs_its_own_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """One function serves all hook commands; each must still reach hookrun as itself."""
    from tests.support.cli import run_cli

    calls: list[tuple[str, list[str]]] = []

    def record(command: str, argv: list[str]) -> int:
        calls.append((command, list(argv)))
        return 0

    monkeypatch.setattr("ovhooks.hookrun.main", record)
    for command in EVENT_NAMES:
        result = run_cli(command, "--host", "codex", "--dry-run", input="{}")
        assert result.exit_code == 0, result.output
    assert calls == [(c, ["--host", "codex", "--dry-run"]) for c in EVENT_NAMES]


def test_cli_module_only_wires() -> None:
    tree = ast.parse(Path(ovhooks.cli.__file__).read_text(encoding="utf-8"))
    defined = [f.name for f in _functions(tree)]
    assert defined == ["run"], f"cli.py defines {defined}: command logic belongs in commands/"


@pytest.mark.parametrize("path", _modules())
def test_no_register_closures(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for fn in _functions(tree):
        assert fn.name != "register", f"{path.name}: register() is gone; cli.py wires commands"
