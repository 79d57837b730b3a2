"""No CLI command writes the API key, in its output or its error text (issue 40).

Every command of the Typer app (read from the app itself: a new command fails
``test_every_command_is_listed`` until it has requests here) runs as a real process with
the key in its environment, in a memory's text (remembered before the key was configured)
and in its arguments: as a positional value, a flag's value, an unknown flag, a hook's
payload. Click's own usage errors quote arguments before any command has loaded the
settings; they are covered too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import typer.main

from ovhooks.cli import app
from tests.support.hooks import hook_env

KEY = "HarborLanternQuartz1729x"  # no known shape: the scrubber lets it through on capture
URI = f"viking://user/memories/{KEY}"
HOOKS = (
    "session-start", "user-prompt-submit", "pre-tool-use", "post-tool-use", "stop",
    "subagent-start", "subagent-stop", "pre-compact", "post-compact", "session-end",
    "directory-added",
)  # fmt: skip
# command -> argument lists (each also run with --json where the command takes it)
ARGS: dict[str, list[list[str]]] = {
    "search": [[KEY], ["gateway", "--limit", KEY], ["gateway"]],
    "read": [[URI], [KEY]],
    "ls": [[URI], [KEY]],
    "remember": [[f"note {KEY}", "--kind", KEY]],
    "forget": [[URI, "--yes"], [KEY, "--yes"]],
    "commit": [[KEY]],
    "sweep": [[f"--{KEY}"]],
    "flush": [[f"--{KEY}"], []],
    "import": [[KEY, KEY], ["codex", f"/nonexistent/{KEY}"]],
    "export": [["--out", f"/nonexistent/{KEY}/x.jsonl"], [f"--{KEY}"]],
    "semantic": [[f"--{KEY}"]],
    "install": [[KEY], ["codex", f"--{KEY}"]],
    "uninstall": [[KEY]],
    "status": [[], [f"--{KEY}"]],
    "doctor": [[f"--{KEY}"]],
    "ui": [["--bind", KEY, "--no-open"], ["--port", KEY]],
    "mcp": [[f"--{KEY}"]],
    "version": [[KEY]],
    **{hook: [["--host", KEY], ["--host", "codex"]] for hook in HOOKS},
}


def test_every_command_is_listed() -> None:
    assert set(typer.main.get_command(app).commands) == set(ARGS)  # type: ignore[attr-defined]


def _run(argv: list[str], env: dict[str, str], cwd: Path, stdin: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "ovhooks", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return done.stdout + done.stderr


def test_no_command_writes_the_key(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    before = hook_env()  # no key configured yet: the memory keeps it
    _run(["remember", f"The staging gateway accepts {KEY} from CI"], before, project, "")
    env = {**hook_env(), "OPENVIKING_API_KEY": KEY}
    payload = json.dumps(
        {"session_id": KEY, "cwd": str(project), "prompt": f"which gateway takes {KEY}?"}
    )
    shown = _run(["search", "staging gateway", "--json"], env, project, "")
    assert "[REDACTED:api_key]" in shown  # the memory holding the key is found, redacted
    leaks = []
    for command, variants in ARGS.items():
        for args in variants:
            for extra in ([], ["--json"]):
                out = _run([command, *args, *extra], env, project, payload)
                if KEY in out:
                    leaks.append(f"{command} {args} {extra}: {out[-300:]}")
    assert leaks == []
    assert not any(KEY in os.fspath(p) for p in (Path.home() / ".codex").glob("**/*"))
