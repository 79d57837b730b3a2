"""An unusable state directory is the user's set-up to fix, not a bug in ovhooks (issue 11)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ovhooks.commands.doctor import state_dir_fix
from ovhooks.commands.errors import ExitCode
from tests.support.cli import run_cli, run_json

COMMANDS = [("status",), ("commit",), ("sweep",), ("flush",)]


def _under_a_file(tmp_path: Path) -> str:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a folder should be")
    return str(blocker / "state")


def _unusable_dirs(tmp_path: Path) -> list[str]:
    dirs = [_under_a_file(tmp_path)]
    if os.geteuid() != 0:  # root ignores permission bits
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o000)
        dirs.append(str(locked / "state"))
    return dirs


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_unusable_state_dir_is_an_ordinary_error_with_doctors_fix(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    for state_dir in _unusable_dirs(tmp_path):
        env = {"OVHOOKS_STATE_DIR": state_dir}
        result = run_cli(*args, env=env)
        text = result.stdout + result.stderr
        if result.exit_code == ExitCode.OK:
            continue  # a command with nothing to write may succeed; it must not crash
        assert result.exit_code == ExitCode.ERROR, text
        assert "bug in ovhooks" not in text, text
        assert "state directory unusable" in text and state_dir in text, text
        assert state_dir_fix(state_dir) in " ".join(text.split()), text
        code, doc = run_json(*args, env=env)
        assert code == ExitCode.ERROR
        assert doc["error"]["code"] == "state_dir"
        assert doc["error"]["fix"] == state_dir_fix(state_dir)


def test_at_least_the_lifecycle_commands_report_it(tmp_path: Path) -> None:
    env = {"OVHOOKS_STATE_DIR": _under_a_file(tmp_path)}
    codes = {args[0]: run_cli(*args, env=env).exit_code for args in COMMANDS}
    assert codes["commit"] == codes["flush"] == ExitCode.ERROR, codes
    assert ExitCode.INTERNAL not in codes.values(), codes
