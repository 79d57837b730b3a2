"""Run the real Gemini CLI offline, against :class:`tests.support.gemini_stub.GeminiStub`.

Each run gets its own world under ``base_dir``: ``HOME`` and ``GEMINI_CLI_HOME`` (so
``~/.gemini/settings.json`` is ours), and a work directory. Hooks are registered the way
``ovhooks install gemini`` does it, or with a map of event -> command (the recorder's logging
hook). ``--skip-trust`` stands in for the user trusting the work folder (Gemini skips every
settings hook in an untrusted one, and headless runs refuse to start there), the model is
pinned (``auto`` would add routing calls), and stdin is closed.

Recipe and quirks: ``shared/spec/hosts-more.md`` §1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from tests.support.gemini_stub import GeminiStub
from tests.support.hosts import HostRun, _run, host_environment, install_hooks

GEMINI_EVENTS = (
    "SessionStart",
    "BeforeAgent",
    "AfterAgent",
    "PreCompress",
    "SessionEnd",
    "BeforeTool",
    "AfterTool",
)
MODEL = "gemini-2.5-flash"
# The runner's own host sessions must not leak in (Gemini sets CLAUDE_PROJECT_DIR in hooks).
_FOREIGN = ("GEMINI_", "GOOGLE_", "CODEX_", "CLAUDE", "ANTHROPIC_", "OPENAI_")


def base_settings(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``settings.json`` for an offline run: API-key auth against the stub, no telemetry."""
    settings: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    }
    settings.update(extra or {})
    return settings


def logging_hooks(commands: Mapping[str, str], timeout_ms: int = 30_000) -> dict[str, Any]:
    """``hooks`` for the recorder: one named command per event, every tool matched."""
    return {
        event: [
            {
                "hooks": [
                    {
                        "type": "command",
                        "name": f"log-{event}",
                        "command": command,
                        "timeout": timeout_ms,
                    }
                ]
            }
        ]
        for event, command in commands.items()
    }


class GeminiHost:
    """``gemini -p`` in an isolated ``GEMINI_CLI_HOME`` against a :class:`GeminiStub`."""

    def __init__(
        self,
        gemini_bin: str,
        base_dir: str,
        stub: GeminiStub,
        *,
        hook_commands: Mapping[str, str] | None = None,
        install_with: str | None = None,
        settings: Mapping[str, Any] | None = None,
        base_env: Mapping[str, str],
        workdir: str | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> None:
        self.gemini_bin = gemini_bin
        self.stub = stub
        self.home = os.path.join(base_dir, "home")
        self.gemini_dir = os.path.join(self.home, ".gemini")
        self.workdir = workdir or os.path.join(base_dir, "work")
        for directory in (self.home, self.gemini_dir, self.workdir):
            os.makedirs(directory, exist_ok=True)
        document = base_settings(settings)
        if hook_commands:
            document["hooks"] = logging_hooks(hook_commands)
        with open(self.settings_path, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
        if install_with:
            # Registered exactly as a user does it: `ovhooks install gemini`.
            install_hooks(install_with, "gemini", {"HOME": self.home})
        self.env = host_environment(
            {k: v for k, v in base_env.items() if not k.startswith(_FOREIGN)},
            {
                "HOME": self.home,
                "GOOGLE_GEMINI_BASE_URL": stub.base_url,
                "GEMINI_API_KEY": "stub-key",
                "NO_COLOR": "1",
                **(extra_env or {}),
            },
        )
        self.runs: list[HostRun] = []
        self._started: dict[str, str] = {}  # session id -> its earliest startTime

    @property
    def settings_path(self) -> str:
        return os.path.join(self.gemini_dir, "settings.json")

    def prompt(
        self, prompt: str, *, resume: bool = False, args: Sequence[str] = (), timeout_s: float = 120
    ) -> HostRun:
        """One headless turn; ``resume`` continues the latest session of this work folder."""
        command = [self.gemini_bin, "--skip-trust", "-m", MODEL, "--approval-mode", "yolo"]
        if resume:
            command += ["-r", "latest"]
        command += [*args, "-p", prompt]
        run = _run(command, self.workdir, self.env, timeout_s)
        self.runs.append(run)
        self._note_sessions()
        return run

    def session_ids(self) -> list[str]:
        """Gemini session ids in the order the sessions started, as seen after each run.

        Seen after each run, not read at the end: Gemini CLI 0.61's session cleanup, at the
        next fresh start, deletes a session that was resumed in a later minute than it began
        (the resume leaves an empty ``session-<minute>-<short id>.jsonl``, cleanup deletes it
        as invalid, and with it every file of the same short id: the real transcript too).
        """
        self._note_sessions()
        return sorted(self._started, key=lambda sid: self._started[sid])

    def _note_sessions(self) -> None:
        started = self._started
        for path in self.chat_files():
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue
                    sid = record.get("sessionId") if isinstance(record, dict) else None
                    if isinstance(sid, str) and sid and "projectHash" in record:
                        when = str(record.get("startTime") or "")
                        started[sid] = min(started.get(sid, when), when)

    def chat_files(self) -> list[str]:
        """Every ``session-*.jsonl`` under ``~/.gemini/tmp/*/chats``, oldest first."""
        found = []
        root = os.path.join(self.gemini_dir, "tmp")
        for dirpath, _dirs, files in os.walk(root):
            found += [
                os.path.join(dirpath, f)
                for f in files
                if f.startswith("session-") and f.endswith(".jsonl")
            ]
        return sorted(found, key=os.path.getmtime)

    def describe_chats(self) -> str:
        """Every chat file with its size and first line, for failure messages."""
        root = os.path.join(self.gemini_dir, "tmp")
        lines = []
        for dirpath, _dirs, files in os.walk(root):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    first = handle.readline()[:160]
                lines.append(f"{path} ({os.path.getsize(path)} B): {first}")
        return "\n".join(lines) or f"(no files under {root})"
