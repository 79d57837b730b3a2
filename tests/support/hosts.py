"""Run the real Codex CLI and Claude Code offline, against our stub model servers.

Each host gets its own throw-away world under ``base_dir``: ``HOME``, ``CODEX_HOME`` or
``CLAUDE_CONFIG_DIR``, and a work directory. Hooks are registered the way ``ovhooks install``
does it: Codex reads ``$CODEX_HOME/hooks.json`` (plus ``config.toml`` for the provider), Claude
reads ``$CLAUDE_CONFIG_DIR/settings.json``. stdin is always closed (Codex would otherwise wait
for it), and every run is bounded by a timeout.

Recipe and quirks: ``shared/spec/hosts-e2e.md``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence

from tests.support.host_stubs import MessagesStub, ResponsesStub

CODEX_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "Stop",
    "PreCompact",
    "PostCompact",
    "SessionEnd",
)
CLAUDE_EVENTS = (*CODEX_EVENTS, "SubagentStart", "SubagentStop")
_TOOL_EVENTS = ("PreToolUse", "PostToolUse")
# Variables of the test runner's own host session must not leak into the hosts under test.
_FOREIGN_PREFIXES = ("CODEX_", "CLAUDE", "ANTHROPIC_", "OPENAI_")


# ---------------------------------------------------------------------------------------
# Pure config builders
# ---------------------------------------------------------------------------------------


def hooks_document(
    commands: Mapping[str, str], host: str, timeout_s: int = 30
) -> dict[str, object]:
    """The ``{"hooks": {...}}`` document both hosts read (event -> matcher groups -> handlers)."""
    hooks: dict[str, object] = {}
    for event, command in commands.items():
        group: dict[str, object] = {
            "hooks": [{"type": "command", "command": command, "timeout": timeout_s}]
        }
        if event in _TOOL_EVENTS:
            group["matcher"] = ".*" if host == "codex" else "*"
        elif event == "SessionStart" and host == "codex":
            group["matcher"] = "startup|resume|clear|compact"
        hooks[event] = [group]
    return {"hooks": hooks}


def codex_config_toml(api_base: str) -> str:
    return f"""model = "stub-model"
model_provider = "stub"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.stub]
name = "stub"
base_url = "{api_base}"
env_key = "STUB_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
hooks = true
"""


def host_environment(base: Mapping[str, str], overrides: Mapping[str, str]) -> dict[str, str]:
    """``base`` without the runner's own host variables, then ``overrides``. The launcher's
    hang markers go to this run's own folder unless ``base`` or ``overrides`` names one: a
    marker is named by the host's pid, and a real timeout in one test must not reach another
    test's host (pids come back)."""
    env = {k: v for k, v in base.items() if not k.startswith(_FOREIGN_PREFIXES)}
    env.setdefault("XDG_RUNTIME_DIR", _runtime_dir())
    env.update(overrides)
    return env


_RUNTIME_DIRS: list[str] = []


def hang_markers() -> int:
    """How many host processes of this run had a hook stopped by the launcher (their markers
    in this run's folder that are not cleared)."""
    if not _RUNTIME_DIRS:
        return 0
    from pathlib import Path

    from ovhooks.hosts.launch import MARKER_NAME

    markers = Path(_RUNTIME_DIRS[0]).glob(f"{MARKER_NAME}*")
    return sum(1 for marker in markers if marker.read_text().strip() not in ("", "0"))


def _runtime_dir() -> str:
    """A 0700 folder for this test run's hang markers, removed when the run ends."""
    if not _RUNTIME_DIRS:
        import atexit
        import shutil
        import tempfile

        folder = tempfile.mkdtemp(prefix="ovhooks-test-run-")
        atexit.register(shutil.rmtree, folder, True)
        _RUNTIME_DIRS.append(folder)
    return _RUNTIME_DIRS[0]


# ---------------------------------------------------------------------------------------
# A trivial hook for plumbing tests (no ovhooks involved)
# ---------------------------------------------------------------------------------------

LOGGING_HOOK_SOURCE = '''\
"""Test hook: log the payload, answer context-bearing events with a marker."""
import json, os, sys

host, event, log_path = sys.argv[1], sys.argv[2], sys.argv[3]
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"unparsed": raw}
with open(log_path, "a", encoding="utf-8") as log:
    log.write(json.dumps({"event": event, "payload": payload}) + "\\n")
marker = {
    "SessionStart": "OVH-MARKER-SS-%s-%s" % (host, payload.get("source", "")),
    "UserPromptSubmit": "OVH-MARKER-UPS-%s" % host,
    "SubagentStart": "OVH-MARKER-SUBSTART-%s" % host,
}.get(event)
if marker:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker}}))
else:
    print("{}")
'''


def logging_hook_commands(
    script: str, host: str, log_path: str, events: Sequence[str]
) -> dict[str, str]:
    python = shlex.quote(sys.executable)
    return {
        event: f"{python} {shlex.quote(script)} {host} {event} {shlex.quote(log_path)}"
        for event in events
    }


def read_hook_log(log_path: str) -> list[dict[str, object]]:
    if not os.path.exists(log_path):
        return []
    with open(log_path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# ---------------------------------------------------------------------------------------
# Running the CLIs
# ---------------------------------------------------------------------------------------


class HostRun:
    """One finished CLI invocation."""

    __slots__ = ("args", "returncode", "seconds", "stderr", "stdout")

    def __init__(
        self, args: list[str], returncode: int, stdout: str, stderr: str, seconds: float
    ) -> None:
        self.args = args
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds

    def describe(self) -> str:
        return (
            f"$ {shlex.join(self.args)}\nrc={self.returncode} in {self.seconds:.1f} s\n"
            f"--- stdout ---\n{self.stdout[-3000:]}\n--- stderr ---\n{self.stderr[-3000:]}"
        )

    def check(self) -> HostRun:
        if self.returncode != 0:
            raise AssertionError(f"host CLI failed:\n{self.describe()}")
        return self


def _run(args: list[str], cwd: str, env: Mapping[str, str], timeout_s: float) -> HostRun:
    started = time.monotonic()
    completed = subprocess.run(
        args,
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )
    return HostRun(
        args, completed.returncode, completed.stdout, completed.stderr, time.monotonic() - started
    )


def install_hooks(
    ovhooks_bin: str, host: str, env: Mapping[str, str], extra_args: Sequence[str] = ()
) -> None:
    """Run ``ovhooks install <host>`` against an isolated host config; fail loudly."""
    completed = subprocess.run(
        [ovhooks_bin, "install", host, *extra_args],
        env={"PATH": os.environ.get("PATH", ""), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(
            f"ovhooks install {host} failed ({completed.returncode}):\n"
            f"{completed.stdout}\n{completed.stderr}"
        )


class CodexHost:
    """``codex exec`` in an isolated ``CODEX_HOME`` against a :class:`ResponsesStub`."""

    def __init__(
        self,
        codex_bin: str,
        base_dir: str,
        stub: ResponsesStub,
        *,
        hook_commands: Mapping[str, str] | None = None,
        install_with: str | None = None,
        install_args: Sequence[str] = (),
        base_env: Mapping[str, str],
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        self.codex_bin = codex_bin
        self.stub = stub
        self.home = os.path.join(base_dir, "home")
        self.codex_home = os.path.join(base_dir, "codex-home")
        self.workdir = os.path.join(base_dir, "work")
        for directory in (self.home, self.codex_home, self.workdir):
            os.makedirs(directory, exist_ok=True)
        with open(os.path.join(self.codex_home, "config.toml"), "w", encoding="utf-8") as f:
            f.write(codex_config_toml(stub.api_base))
        if install_with:
            # Registered exactly as a user does it: `ovhooks install codex`.
            env = {"HOME": self.home, "CODEX_HOME": self.codex_home}
            if install_args:  # e.g. --trust, which asks this codex for the hooks' hashes
                env["PATH"] = os.pathsep.join(
                    (os.path.dirname(codex_bin), os.environ.get("PATH", ""))
                )
            install_hooks(install_with, "codex", env, install_args)
        else:
            with open(os.path.join(self.codex_home, "hooks.json"), "w", encoding="utf-8") as f:
                json.dump(hooks_document(hook_commands or {}, "codex"), f, indent=1)
        self.env = host_environment(
            base_env,
            {
                "HOME": self.home,
                "CODEX_HOME": self.codex_home,
                "STUB_API_KEY": "dummy",
                **(extra_env or {}),
            },
        )
        self.runs: list[HostRun] = []

    def exec(
        self,
        prompt: str,
        *,
        resume: bool = False,
        config: Sequence[str] = (),
        timeout_s: float = 120.0,
        bypass_trust: bool = True,
    ) -> HostRun:
        """One ``codex exec`` turn; ``resume`` continues the last session in this CODEX_HOME.

        Hooks are untrusted in a fresh CODEX_HOME and Codex skips them silently, so every
        run passes ``--dangerously-bypass-hook-trust``.
        """
        args = [self.codex_bin, "exec"]
        if resume:
            args += ["resume", "--last"]
        if bypass_trust:
            args.append("--dangerously-bypass-hook-trust")
        args.append("--skip-git-repo-check")
        for item in config:
            args += ["-c", item]
        args.append(prompt)
        run = _run(args, self.workdir, self.env, timeout_s)
        self.runs.append(run)
        return run

    def session_ids(self) -> list[str]:
        """Codex session ids in the order the stub first saw them (``session-id`` header)."""
        seen: list[str] = []
        for request in self.stub.turn_requests():
            sid = request.headers.get("session-id")
            if sid and sid not in seen:
                seen.append(sid)
        return seen


class ClaudeHost:
    """``claude -p`` in an isolated ``CLAUDE_CONFIG_DIR`` against a :class:`MessagesStub`."""

    def __init__(
        self,
        claude_bin: str,
        base_dir: str,
        stub: MessagesStub,
        *,
        hook_commands: Mapping[str, str] | None = None,
        install_with: str | None = None,
        base_env: Mapping[str, str],
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        self.claude_bin = claude_bin
        self.stub = stub
        self.home = os.path.join(base_dir, "home")
        self.config_dir = os.path.join(base_dir, "claude-config")
        self.workdir = os.path.join(base_dir, "work")
        for directory in (self.home, self.config_dir, self.workdir):
            os.makedirs(directory, exist_ok=True)
        if install_with:
            install_hooks(
                install_with, "claude", {"HOME": self.home, "CLAUDE_CONFIG_DIR": self.config_dir}
            )
        else:
            with open(os.path.join(self.config_dir, "settings.json"), "w", encoding="utf-8") as f:
                json.dump(hooks_document(hook_commands or {}, "claude"), f, indent=1)
        self.env = host_environment(
            base_env,
            {
                "HOME": self.home,
                "CLAUDE_CONFIG_DIR": self.config_dir,
                "ANTHROPIC_BASE_URL": stub.base_url,
                "ANTHROPIC_API_KEY": "sk-ant-dummy",
                "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                "DISABLE_AUTOUPDATER": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                **(extra_env or {}),
            },
        )
        self.runs: list[HostRun] = []

    def prompt(
        self,
        prompt: str,
        *,
        continue_session: bool = False,
        resume_id: str | None = None,
        fork: bool = False,
        tools: bool = True,
        env: Mapping[str, str] | None = None,
        timeout_s: float = 120.0,
    ) -> HostRun:
        """One ``claude -p`` call. The prompt goes right after ``-p``: ``--allowedTools`` is
        variadic and would swallow a prompt placed after it. ``fork`` resumes into a new
        session (``--fork-session``; SessionStart ``source: fork`` on 2.1.214+)."""
        args = [self.claude_bin, "-p", prompt]
        if continue_session:
            args.append("--continue")
        if resume_id:
            args += ["--resume", resume_id]
        if fork:
            args.append("--fork-session")
        if tools:
            args.append("--allowedTools=Bash,Agent")
        run_env = {**self.env, **(env or {})}
        run = _run(args, self.workdir, run_env, timeout_s)
        self.runs.append(run)
        return run

    def session_ids(self) -> list[str]:
        """Claude session ids in the order the stub first saw them."""
        seen: list[str] = []
        for request in self.stub.turn_requests():
            sid = request.headers.get("x-claude-code-session-id")
            if sid and sid not in seen:
                seen.append(sid)
        return seen
