"""Running hooks in-process (fast) or as real processes (the way hosts run them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ovhooks.hookrun import run_hook
from ovhooks.hosts.base import EVENT_NAMES
from ovhooks.settings import layout

REPO = Path(__file__).resolve().parents[2]

# host event name -> hook command, e.g. "SessionStart" -> "session-start"
HOOKS = {event: command for command, event in EVENT_NAMES.items()}

COMMON_FIELDS = {"continue", "stopReason", "suppressOutput", "systemMessage"}
SPECIFIC_EVENTS = {"SessionStart", "UserPromptSubmit"}


def hook_env(url: str | None = None, **overrides: str) -> dict[str, str]:
    """The environment a hook process would see (after the isolated_home fixture ran)."""
    env = dict(os.environ)
    # Hook processes cache their bytecode as installed packages do for users; without it
    # every test process would pay compile time and timing checks would measure the compiler.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if url:
        env["OPENVIKING_URL"] = url
        env["OVHOOKS_BACKEND"] = "openviking"
    env.setdefault("OVHOOKS_DETACH", "0")
    env.setdefault("OVHOOKS_LOG_LEVEL", "info")
    env.update(overrides)
    return env


def calibrate_server(url: str, state_dir: str | None = None) -> None:
    """A fresh probe calibration for the server at ``url`` in the recall state (default state
    dir: the test's), as a user's hooks hold one after their first prompts: a fake server's
    0.9 scores then stand about 8 spreads above its unrelated prompts."""
    from ovhooks.recall.state import ServerState

    state = ServerState(state_dir or os.environ["OVHOOKS_STATE_DIR"], f"openviking {url}")
    fit = {"loc": 0.5, "scale": 0.05, "n": 8.0}
    state.set_calibration({"at": time.time(), "scripts": ["en", "zh"], "en": fit, "zh": fit})
    state.save()


def capture_only_env(url: str, **overrides: str) -> dict[str, str]:
    """``hook_env`` with recall and session-start context off: capture and lifecycle tests
    then see only their own writes in the fake server's request log."""
    return hook_env(url, OVHOOKS_RECALL="0", OVHOOKS_SESSION_CONTEXT="0", **overrides)


def session_state(key: str, state_dir: str | None = None) -> dict[str, Any]:
    """The saved state document of session ``key`` (default state dir: the test's)."""
    base = state_dir or os.environ["OVHOOKS_STATE_DIR"]
    with open(layout.state_path(base, key), encoding="utf-8") as fh:
        doc: dict[str, Any] = json.load(fh)
    return doc


def log_lines(state_dir: str | None = None) -> list[str]:
    """The lines of ovhooks' log (none when nothing was logged yet)."""
    path = layout.log_path(state_dir or os.environ["OVHOOKS_STATE_DIR"])
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read().splitlines()


def crash_lines(state_dir: str | None = None) -> list[str]:
    """The log lines that report a crash: a hook that failed open still logs one."""
    return [line for line in log_lines(state_dir) if "crash" in line]


def logged_errors(state_dir: str | None = None) -> list[dict[str, Any]]:
    """The log's records at level ``error``."""
    records = [json.loads(line) for line in log_lines(state_dir) if line.strip()]
    return [record for record in records if record.get("level") == "error"]


def moved_here(payload: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """A recorded payload with the recording machine's paths (its transcripts, project folders
    and added directories, all under /tmp) moved into ``tmp_path``: the hooks read there
    (project files, transcripts), and a test reads nothing outside the repository and its own
    temp dir, whatever a machine holds under /tmp (tests/support/outside_paths.py)."""
    return {
        key: f"{tmp_path}{value[len('/tmp') :]}"
        if isinstance(value, str) and value.startswith("/tmp/")
        else value
        for key, value in payload.items()
    }


def run_inline(
    command: str,
    payload: Any,
    env: dict[str, str],
    *,
    host: str = "codex",
    now: float | None = None,
    dry_run: bool = False,
) -> tuple[dict[str, Any], str]:
    """Run a hook in this process; returns (parsed reply, stderr text)."""
    stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    argv = ["--host", host] + (["--dry-run"] if dry_run else [])
    out, err = run_hook(
        command, argv, stdin, env, now=time.time() if now is None else now, started=time.monotonic()
    )
    return json.loads(out), err


def run_process(
    command: str, payload: Any, env: dict[str, str], *, host: str = "codex", timeout: float = 20
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    """Run ``python -m ovhooks <command>`` as the host would; returns (result, seconds)."""
    stdin = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "ovhooks", command, "--host", host],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=timeout,
        cwd=str(REPO),
        check=False,
    )
    return proc, time.monotonic() - start


def assert_host_valid(host: str, event: str, reply: dict[str, Any]) -> None:
    """The reply obeys interface §1 for this host and event."""
    if host == "gemini":
        from tests.support.gemini_replies import assert_gemini_valid

        assert_gemini_valid(event, reply)
        return
    assert isinstance(reply, dict)
    allowed = set(COMMON_FIELDS)
    specific_events = (
        SPECIFIC_EVENTS
        if host == "codex"
        else SPECIFIC_EVENTS | {"SubagentStart", "PreToolUse", "PostToolUse"}
    )
    if event in specific_events:
        allowed.add("hookSpecificOutput")
    extra = set(reply) - allowed
    assert not extra, f"{host} {event}: fields not allowed: {extra}"
    if "hookSpecificOutput" in reply:
        specific = reply["hookSpecificOutput"]
        assert specific["hookEventName"] == event
        if "additionalContext" in specific:
            assert isinstance(specific["additionalContext"], str)
            assert len(specific["additionalContext"]) < 10000
    if "systemMessage" in reply:
        assert isinstance(reply["systemMessage"], str) and reply["systemMessage"]


def hook_floor(env: dict[str, str], *, host: str = "codex", runs: int = 3) -> list[float]:
    """Wall times of a hook that does nothing (PostCompact with an empty payload), measured
    now, on this machine and under its current load: the cost every hook process pays.

    Timing checks compare against this instead of fixed figures, so they hold on a loaded
    2-core CI machine as well as on an idle laptop.
    """
    return [run_process("post-compact", {}, env, host=host)[1] for _ in range(runs)]
