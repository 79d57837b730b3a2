"""Run the real Pi coding agent and OpenCode offline, against :class:`ChatStub`.

Each host gets its own throw-away world under ``base_dir`` (``HOME``, the host's config and
data folders, a work directory); ovhooks is registered the way users do it (``ovhooks install
pi|opencode`` writes the shim file). stdin is closed and every run is bounded by a timeout.
Recipes: ``shared/spec/hosts-more.md`` §2.6-2.7 (Pi), §3.5-3.6 (OpenCode).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from tests.support.chat_stub import ChatStub
from tests.support.hosts import HostRun, _run, host_environment, install_hooks

PI_VERSION = "0.73.1"
OPENCODE_VERSION = "1.18.33"
STUB_MODEL = "stub-model"


def pi_models_json(api_base: str) -> dict[str, object]:
    """Pi's ``models.json``: one OpenAI-compatible provider ``stub`` on loopback."""
    return {
        "providers": {
            "stub": {
                "baseUrl": api_base,
                "api": "openai-completions",
                "apiKey": "dummy",
                "compat": {"supportsDeveloperRole": False},
                "models": [
                    {
                        "id": STUB_MODEL,
                        "reasoning": False,
                        "contextWindow": 128000,
                        "maxTokens": 4096,
                    }
                ],
            }
        }
    }


class PiHost:
    """``pi -p`` in an isolated ``PI_CODING_AGENT_DIR`` against a :class:`ChatStub`."""

    def __init__(
        self,
        pi_bin: str,
        base_dir: str,
        stub: ChatStub,
        *,
        install_with: str | None,
        base_env: Mapping[str, str],
        extra_env: Mapping[str, str] | None = None,
        workdir: str | None = None,
    ) -> None:
        self.pi_bin = pi_bin
        self.stub = stub
        self.home = os.path.join(base_dir, "home")
        self.agent_dir = os.path.join(base_dir, "pi-agent")
        self.workdir = workdir or os.path.join(base_dir, "work")
        for directory in (self.home, self.agent_dir, self.workdir):
            os.makedirs(directory, exist_ok=True)
        with open(os.path.join(self.agent_dir, "models.json"), "w", encoding="utf-8") as f:
            json.dump(pi_models_json(stub.api_base), f, indent=1)
        if install_with:
            install_hooks(
                install_with, "pi", {"HOME": self.home, "PI_CODING_AGENT_DIR": self.agent_dir}
            )
        self.env = host_environment(
            base_env,
            {
                "HOME": self.home,
                "PI_CODING_AGENT_DIR": self.agent_dir,
                "PI_OFFLINE": "1",
                "PI_SKIP_VERSION_CHECK": "1",
                "PI_TELEMETRY": "0",
                **(extra_env or {}),
            },
        )
        self.runs: list[HostRun] = []

    def prompt(
        self, prompt: str, *, continue_session: bool = False, timeout_s: float = 120.0
    ) -> HostRun:
        args = [self.pi_bin, "--provider", "stub", "--model", STUB_MODEL]
        if continue_session:
            args.append("-c")
        args += ["-p", prompt]
        run = _run(args, self.workdir, self.env, timeout_s)
        self.runs.append(run)
        return run

    def session_files(self) -> list[str]:
        """Session JSONL files, oldest first (their names start with the creation time)."""
        root = os.path.join(self.agent_dir, "sessions")
        found = []
        for directory, _dirs, files in os.walk(root):
            found += [os.path.join(directory, n) for n in files if n.endswith(".jsonl")]
        return sorted(found, key=os.path.basename)

    def session_ids(self) -> list[str]:
        ids = []
        for path in self.session_files():
            with open(path, encoding="utf-8") as handle:
                header = json.loads(handle.readline())
            ids.append(str(header["id"]))
        return ids
