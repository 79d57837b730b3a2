"""Run the real GitHub Copilot CLI, Qwen Code and Factory Droid offline, against ``ChatStub``.

Each host gets its own world under ``base_dir``: ``HOME`` (and ``COPILOT_HOME``), a work
directory, and the host's config files. All three reach the stub's
``/v1/chat/completions`` (recipes: ``shared/spec/hosts-wave4.md`` §1.2, §2.1, §3.2):

- Copilot: ``COPILOT_OFFLINE=true`` with a custom provider (``COPILOT_PROVIDER_*``); hooks
  in ``$COPILOT_HOME/settings.json`` (PascalCase keys: snake_case payloads);
- Qwen Code: ``--auth-type openai`` with ``OPENAI_*``; hooks in ``~/.qwen/settings.json``
  (timeouts in milliseconds);
- Droid: a ``customModels`` entry in ``~/.factory/settings.json``; hooks in
  ``~/.factory/hooks.json``, keyed by event at the top level (seconds).

Hooks are registered either by ``ovhooks install <host>`` (``install_with``) or as a map of
event -> command (the recorder's and the plumbing tests' logging hook). stdin is closed and
every run is bounded.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Any

from tests.support import pytest_plugin
from tests.support.chat_stub import ChatStub
from tests.support.hosts import HostRun, _run, host_environment, install_hooks

COPILOT_VERSION = "1.0.102"
QWEN_VERSION = "0.24.4"
DROID_VERSION = "0.225.1"
PREFIXES = {
    "copilot": f"hostcli-copilot-{COPILOT_VERSION}",
    "qwen": f"hostcli-qwen-{QWEN_VERSION}",
    "droid": f"hostcli-droid-{DROID_VERSION}",
}
BINARIES = {"copilot": "copilot", "qwen": "qwen", "droid": "droid"}
# The events each host is asked to run hooks for (its own names).
EVENTS = {
    "copilot": ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"),
    "qwen": ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"),
    "droid": ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"),
}
# The runner's own host sessions must not leak in (each host sets CLAUDE_PROJECT_DIR).
_FOREIGN = ("COPILOT_", "QWEN_", "FACTORY_", "DROID_", "GEMINI_", "GITHUB_", "GH_")

LOGGING_HOOK_SOURCE = '''\
"""Recorder hook: log payload and environment names, answer with a marker in the host's shape."""
import json, os, sys

host, event, log_path = sys.argv[1], sys.argv[2], sys.argv[3]
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"unparsed": raw}
prefixes = ("COPILOT", "QWEN", "FACTORY", "DROID", "CLAUDE")
env = sorted(k for k in os.environ if k.startswith(prefixes))
with open(log_path, "a", encoding="utf-8") as log:
    log.write(json.dumps({"event": event, "payload": payload, "env": env}) + "\\n")
marker = {"SessionStart": "OVH-MARKER-SS-" + host, "UserPromptSubmit": "OVH-MARKER-UPS-" + host}
if event in marker and host == "copilot":
    print(json.dumps({"additionalContext": marker[event]}))
elif event in marker:
    ctx = {"hookEventName": event, "additionalContext": marker[event]}
    print(json.dumps({"hookSpecificOutput": ctx}))
else:
    print("{}")
'''


def cli_path(host: str, cache_root: str) -> str:
    """Where ci-setup puts the host's binary (``<cache>/<prefix>/node_modules/.bin``)."""
    return os.path.join(cache_root, PREFIXES[host], "node_modules", ".bin", BINARIES[host])


def find_cli(host: str) -> str:
    """The host's binary under ``$OVHOOKS_CI_CACHE`` (default ``~/.cache/ovhooks-ci``); the test
    skips without it (fails with ``CI=true``)."""
    environ = pytest_plugin.real_environ()
    cache = environ.get("OVHOOKS_CI_CACHE") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".cache", "ovhooks-ci"
    )
    path = cli_path(host, cache)
    pytest_plugin.require(
        os.access(path, os.X_OK), f"{host} not found at {path}", f"run scripts/ci-setup.sh {host}"
    )
    return path


def logging_hook_commands(script: str, host: str, log_path: str) -> dict[str, str]:
    python = shlex.quote(sys.executable)
    return {
        event: f"{python} {shlex.quote(script)} {host} {event} {shlex.quote(log_path)}"
        for event in EVENTS[host]
    }


def claude_style_hooks(commands: Mapping[str, str], timeout: int) -> dict[str, Any]:
    """``{event: [{"hooks": [command]}]}``: no matcher (Copilot rejects an empty one on
    PreCompact, and with it every hook of the file, saying so only in its log)."""
    return {
        event: [{"hooks": [{"type": "command", "command": c, "timeout": timeout}]}]
        for event, c in commands.items()
    }


def _write_json(path: str, doc: Mapping[str, Any]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(doc, handle, indent=2)


class Wave4Host:
    """One host CLI in an isolated home, against a :class:`ChatStub`."""

    host = ""

    def __init__(
        self,
        binary: str,
        base_dir: str,
        stub: ChatStub,
        *,
        hook_commands: Mapping[str, str] | None = None,
        install_with: str | None = None,
        install_args: Sequence[str] = (),
        base_env: Mapping[str, str],
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        self.binary = binary
        self.stub = stub
        self.base_dir = base_dir
        self.home = os.path.join(base_dir, "home")
        self.workdir = os.path.join(base_dir, "work")
        for directory in (self.home, self.workdir):
            os.makedirs(directory, exist_ok=True)
        self.env = host_environment(
            {k: v for k, v in base_env.items() if not k.startswith(_FOREIGN)},
            {"HOME": self.home, "NO_COLOR": "1", **self.host_env(), **(extra_env or {})},
        )
        self.write_config(dict(hook_commands or {}))
        if install_with:
            # Registered exactly as a user does it: `ovhooks install <host>`.
            install_hooks(install_with, self.host, self.install_env(), install_args)
        self.runs: list[HostRun] = []

    def host_env(self) -> dict[str, str]:
        return {}

    def install_env(self) -> dict[str, str]:
        return {"HOME": self.home}

    def write_config(self, hook_commands: dict[str, str]) -> None:
        raise NotImplementedError

    def command(self, prompt: str, resume: bool) -> list[str]:
        raise NotImplementedError

    def prompt(
        self,
        prompt: str,
        *,
        resume: bool = False,
        env: Mapping[str, str] | None = None,
        timeout_s: float = 180,
    ) -> HostRun:
        """One headless turn; ``resume`` continues the latest session of this work folder."""
        run = _run(
            self.command(prompt, resume), self.workdir, {**self.env, **(env or {})}, timeout_s
        )
        self.runs.append(run)
        return run

    def transcripts(self) -> list[str]:
        """The host's transcript files, oldest first."""
        found = []
        for root in self.transcript_roots():
            for dirpath, _dirs, files in os.walk(root):
                found += [os.path.join(dirpath, f) for f in files if f.endswith(".jsonl")]
        return sorted(found, key=os.path.getmtime)

    def transcript_roots(self) -> list[str]:
        raise NotImplementedError

    def session_ids(self) -> list[str]:
        """Host session ids, oldest transcript first."""
        return [os.path.basename(p)[: -len(".jsonl")] for p in self.transcripts()]

    def ov_sessions(self) -> list[str]:
        """ovhooks' session keys for them (the host's ``session_prefix``)."""
        from ovhooks.hosts.registry import session_key

        return [session_key(self.host, sid) for sid in self.session_ids()]

    def describe(self) -> str:
        return "\n".join(run.describe()[-2000:] for run in self.runs)


class CopilotHost(Wave4Host):
    """``copilot -p`` with ``COPILOT_OFFLINE=true`` and a BYOK provider pointing at the stub."""

    host = "copilot"

    @property
    def copilot_home(self) -> str:
        return os.path.join(self.base_dir, "copilot-home")

    def host_env(self) -> dict[str, str]:
        return {
            "COPILOT_HOME": self.copilot_home,
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": self.stub.api_base,
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": "stub-model",
            # Its unpacked package (235 MB), which ci-setup put beside the binary.
            "XDG_CACHE_HOME": os.path.join(
                os.path.dirname(os.path.dirname(os.path.dirname(self.binary))), "xdg-cache"
            ),
        }

    def install_env(self) -> dict[str, str]:
        return {"HOME": self.home, "COPILOT_HOME": self.copilot_home}

    def write_config(self, hook_commands: dict[str, str]) -> None:
        os.makedirs(self.copilot_home, exist_ok=True)
        if hook_commands:
            _write_json(
                os.path.join(self.copilot_home, "settings.json"),
                {"hooks": claude_style_hooks(hook_commands, 30)},
            )

    def command(self, prompt: str, resume: bool) -> list[str]:
        args = [self.binary, "-p", prompt, "--allow-all-tools", "-s"]
        return [*args, "--continue"] if resume else args

    def session_ids(self) -> list[str]:  # session-state/<id>/events.jsonl
        return [os.path.basename(os.path.dirname(p)) for p in self.transcripts()]

    def transcript_roots(self) -> list[str]:
        return [os.path.join(self.copilot_home, "session-state")]


class QwenHost(Wave4Host):
    """``qwen --auth-type openai -p`` with ``OPENAI_*`` pointing at the stub."""

    host = "qwen"

    def host_env(self) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": self.stub.api_base,
            "OPENAI_API_KEY": "dummy",
            "OPENAI_MODEL": "stub-model",
        }

    @property
    def settings_path(self) -> str:
        return os.path.join(self.home, ".qwen", "settings.json")

    def write_config(self, hook_commands: dict[str, str]) -> None:
        doc: dict[str, Any] = {"privacy": {"usageStatisticsEnabled": False}}
        if hook_commands:
            doc["hooks"] = claude_style_hooks(hook_commands, 30_000)
        _write_json(self.settings_path, doc)

    def command(self, prompt: str, resume: bool) -> list[str]:
        args = [self.binary, "--auth-type", "openai", "-m", "stub-model", "--yolo"]
        return [*args, *(["-c"] if resume else []), "-p", prompt]

    def transcript_roots(self) -> list[str]:
        return [os.path.join(self.home, ".qwen", "projects")]


class DroidHost(Wave4Host):
    """``droid exec -m custom:stub-model`` with a ``customModels`` entry for the stub."""

    host = "droid"

    @property
    def factory_dir(self) -> str:
        return os.path.join(self.home, ".factory")

    def write_config(self, hook_commands: dict[str, str]) -> None:
        model = {
            "model": "stub-model",
            "displayName": "Stub",
            "baseUrl": self.stub.api_base,
            "apiKey": "dummy",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096,
        }
        _write_json(os.path.join(self.factory_dir, "settings.json"), {"customModels": [model]})
        if hook_commands:
            _write_json(
                os.path.join(self.factory_dir, "hooks.json"),
                claude_style_hooks(hook_commands, 30),
            )

    def command(self, prompt: str, resume: bool) -> list[str]:
        if resume:  # `droid exec -s ID` fetches the session from api.factory.ai first
            raise ValueError("droid cannot resume a session offline: use conversation()")
        return [self.binary, "exec", "-m", "custom:stub-model", "--auto", "high", prompt]

    def conversation(self, prompts: Sequence[str], *, timeout_s: float = 240) -> HostRun:
        """Several prompts in one ``droid exec`` session (``--input-format stream-json``: one
        ``{"role":"user","content":…}`` line each on stdin), the offline way to continue."""
        args = [self.binary, "exec", "-m", "custom:stub-model", "--auto", "high"]
        args += ["--input-format", "stream-json", "-o", "stream-json"]
        lines = "".join(json.dumps({"role": "user", "content": p}) + "\n" for p in prompts)
        started = time.monotonic()
        done = subprocess.run(
            args, cwd=self.workdir, env=self.env, input=lines, capture_output=True,
            text=True, timeout=timeout_s, check=False,
        )  # fmt: skip
        run = HostRun(args, done.returncode, done.stdout, done.stderr, time.monotonic() - started)
        self.runs.append(run)
        return run

    def session_ids(self) -> list[str]:
        return [os.path.basename(p)[: -len(".jsonl")] for p in self.transcripts()]

    def transcript_roots(self) -> list[str]:
        return [os.path.join(self.factory_dir, "sessions")]


HOST_CLASSES: dict[str, type[Wave4Host]] = {
    "copilot": CopilotHost,
    "qwen": QwenHost,
    "droid": DroidHost,
}


def make_host(host: str, binary: str, base_dir: str, stub: ChatStub, **kwargs: Any) -> Wave4Host:
    return HOST_CLASSES[host](binary, base_dir, stub, **kwargs)


def read_log(path: str) -> list[dict[str, Any]]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def events_fired(path: str) -> Sequence[str]:
    return [str(entry["event"]) for entry in read_log(path)]
