"""The README's console examples are what the commands print (issue 22).

Every ``console`` block of README.md is run as written, one ``$`` command at a time (a line
ending in ``\\`` continues it), by bash in a fresh home with nothing configured (memory is
the local store, as on a first run), the ``~/.ovhooks/bin/ovhooks`` the README installs
standing for this checkout. What each command prints must be the lines under it, byte for
byte. Nothing is normalised: a memory's file name ends in a hash of its text, not of the
time, and a recalled score moves by about 1e-7 per second of age (its recency term), far
below the two decimals shown.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def console_blocks(text: str) -> list[list[tuple[str, str]]]:
    """Each ``console`` block as (command, expected output) pairs, in order."""
    blocks = []
    for body in re.findall(r"^```console\n(.*?)^```", text, flags=re.M | re.S):
        steps: list[tuple[str, list[str]]] = []
        continued = False
        for line in body.splitlines():
            if continued:
                command, out = steps[-1]
                steps[-1] = (command + "\n" + line, out)
            elif line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
            continued = bool(steps) and line.endswith("\\") and not steps[-1][1]
        blocks.append([(c, "".join(o + "\n" for o in out)) for c, out in steps])
    return blocks


def test_the_readme_has_console_examples() -> None:
    blocks = console_blocks(README.read_text(encoding="utf-8"))
    commands = [c for block in blocks for c, _out in block]
    assert any("remember" in c for c in commands)
    assert any("user-prompt-submit" in c for c in commands)


def test_the_block_reader_joins_continued_commands() -> None:
    text = "```console\n$ echo a \\\n    b\na b\n$ true\n```\n"
    assert console_blocks(text) == [[("echo a \\\n    b", "a b\n"), ("true", "")]]


@pytest.mark.parametrize("number", range(len(console_blocks(README.read_text(encoding="utf-8")))))
def test_each_console_example_prints_what_the_readme_shows(number: int, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    bin_dir = home / ".ovhooks" / "bin"
    bin_dir.mkdir(parents=True)
    project.mkdir()
    launcher = bin_dir / "ovhooks"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m ovhooks "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)}
    env["PYTHONPATH"] = str(REPO)
    block = console_blocks(README.read_text(encoding="utf-8"))[number]
    try:
        for command, expected in block:
            done = subprocess.run(
                ["bash", "-c", command],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, f"$ {command}\n{done.stderr}"
            assert done.stdout == expected, f"$ {command}"
    finally:
        # ``remember`` starts the embedding service, as on a user's first run; a user's exits
        # after 30 idle minutes, the test's goes now.
        subprocess.run(
            [str(launcher), "semantic", "--stop"],
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
