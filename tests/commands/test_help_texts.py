"""Every help text renders as written: brackets are text, not Rich markup (issue 11)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer.main

from ovhooks.cli import app
from tests.support.cli import run_cli


def _commands() -> dict[str, Any]:
    group: Any = typer.main.get_command(app)
    return dict(group.commands)


def _flat(text: str) -> str:
    return re.sub(r"[\s│╭╮╰╯─]+", " ", text)


def _help(name: str) -> str:
    result = run_cli(name, "--help", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return _flat(result.output)


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_bracket_of_a_help_text_is_shown(name: str) -> None:
    command = _commands()[name]
    texts = [command.help or ""] + [str(getattr(p, "help", "") or "") for p in command.params]
    bracketed = {m for text in texts for m in re.findall(r"\[[^\[\]]*\]", text)}
    shown = _help(name)
    for token in sorted(bracketed):
        assert _flat(token) in shown, f"{name} --help lost {token!r}"


@pytest.mark.parametrize(
    ("name", "token"),
    [("forget", "[uri]"), ("sweep", "[lines, dry run only]"), ("import", "[dry-run lines]")],
)
def test_the_brackets_reported_missing(name: str, token: str) -> None:
    assert token in _help(name)
