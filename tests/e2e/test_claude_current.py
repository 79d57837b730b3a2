"""Claude Code 2.1.330 (the current format) with ovhooks installed, offline, local store.

- a forked session (``--resume <id> --fork-session``: SessionStart ``source: fork``) stores
  only its own turns, although its transcript starts with copies of the parent's;
- ``DirectoryAdded`` (fired for the SDK's ``register_repo_root``) moves the session to the added
  repository's project for the turns that follow;
- the shipped registration (which now names DirectoryAdded) still runs on 2.1.197.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support import hosts, pytest_plugin
from tests.support.host_stubs import MessagesStub
from tests.support.repos import make_clone
from tests.support.stores import LocalStore

pytestmark = [pytest.mark.hosts_e2e]


def _environment(base: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in pytest_plugin.real_environ().items()
        if not k.startswith(("OVHOOKS_", "OPENVIKING_", "XDG_"))
    }
    env.update(
        {
            # the host's hooks, not recall by meaning (tests/semantic); no lingering service
            "OVHOOKS_SEMANTIC": "off",
            "OVHOOKS_BACKEND": "local",
            "OVHOOKS_STATE_DIR": str(base / "state"),
            "OVHOOKS_DATA_DIR": str(base / "data"),
            "OVHOOKS_CONFIG": str(base / "ovhooks-config.toml"),
            "OVHOOKS_DETACH": "0",
            "OVHOOKS_LOG_LEVEL": "debug",
        }
    )
    return env


def _host(cli: str, ovhooks_bin: str, base: Path, stub: MessagesStub) -> hosts.ClaudeHost:
    claude = hosts.ClaudeHost(
        cli, str(base / "claude"), stub, install_with=ovhooks_bin, base_env=_environment(base)
    )
    workdir = Path(claude.workdir)
    if not (workdir / ".git").exists():
        make_clone(workdir, "git@github.com:acme/mono.git")
    return claude


def _state(base: Path, sid: str) -> dict[str, Any]:
    path = base / "state" / "sessions" / f"cc-{sid}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_a_fork_stores_only_its_own_turns(
    claude_latest_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    store = LocalStore(tmp_path / "data")
    with MessagesStub(log_dir=str(tmp_path / "stub")) as stub:
        claude = _host(claude_latest_cli, ovhooks_bin, tmp_path, stub)
        claude.prompt("first turn: in this repo I prefer tabs")
        claude.prompt("second turn RUNSHELL please", continue_session=True)
        parent = claude.session_ids()[0]
        claude.prompt("the fork's own question", resume_id=parent, fork=True)
        ids = claude.session_ids()
    for run in claude.runs:
        assert run.returncode == 0, run.describe()
    assert len(ids) == 2, ids
    fork = ids[1]
    assert _state(tmp_path, fork).get("forked") is True
    parent_texts = store.texts(f"cc-{parent}")
    fork_texts = store.texts(f"cc-{fork}")
    assert any("first turn" in t for t in parent_texts), parent_texts
    assert fork_texts and "the fork's own question" in fork_texts[0], fork_texts
    assert not any("first turn" in t or "RUNSHELL" in t for t in fork_texts), fork_texts


def _stream(claude: hosts.ClaudeHost, frames: list[dict[str, Any]]) -> subprocess.Popen[str]:
    args = [claude.claude_bin, "-p", "--input-format", "stream-json"]
    args += ["--output-format", "stream-json", "--verbose"]
    proc = subprocess.Popen(
        args,
        cwd=claude.workdir,
        env=claude.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for frame in frames:
        proc.stdin.write(json.dumps(frame) + "\n")
        proc.stdin.flush()
        if frame.get("type") == "user":  # wait for this turn's result before the next frame
            for line in proc.stdout:
                if '"type":"result"' in line.replace(" ", ""):
                    break
        elif frame.get("type") == "control_request":
            for line in proc.stdout:
                if '"control_response"' in line:
                    break
    proc.stdin.close()
    proc.wait(timeout=60)
    return proc


def _user(text: str) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}}


def test_directory_added_moves_the_project_for_new_turns(
    claude_latest_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    with MessagesStub(log_dir=str(tmp_path / "stub")) as stub:
        claude = _host(claude_latest_cli, ovhooks_bin, tmp_path, stub)
        nested = make_clone(Path(claude.workdir) / "libs" / "parser", "git@github.com:acme/parser")
        frames = [
            {"type": "control_request", "request_id": "r0", "request": {"subtype": "initialize"}},
            _user("a turn in the monorepo"),
            {
                "type": "control_request",
                "request_id": "r1",
                "request": {"subtype": "register_repo_root", "directory": str(nested)},
            },
            _user("a turn about the parser"),
        ]
        proc = _stream(claude, frames)
        ids = claude.session_ids()
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    assert len(ids) == 1
    state = _state(tmp_path, ids[0])
    deadline = time.monotonic() + 10
    while state.get("peer") != "github-com-acme-parser" and time.monotonic() < deadline:
        time.sleep(0.2)
        state = _state(tmp_path, ids[0])
    assert state.get("project_dir") == os.path.realpath(nested) or state.get("project_dir") == str(
        nested
    )
    assert state.get("peer") == "github-com-acme-parser"
    log = (tmp_path / "state" / "logs" / "ovhooks.log").read_text(encoding="utf-8")
    assert "project_followed" in log


def test_the_registration_with_directory_added_runs_on_2_1_197(
    claude_cli: str, ovhooks_bin: str, tmp_path: Path
) -> None:
    store = LocalStore(tmp_path / "data")
    with MessagesStub(log_dir=str(tmp_path / "stub")) as stub:
        claude = _host(claude_cli, ovhooks_bin, tmp_path, stub)
        run = claude.prompt("hello from the old version")
        ids = claude.session_ids()
    assert run.returncode == 0, run.describe()
    assert any("hello from the old version" in t for t in store.texts(f"cc-{ids[0]}"))
