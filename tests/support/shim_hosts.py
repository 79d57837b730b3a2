"""Run the real Pi coding agent and OpenCode offline, against :class:`ChatStub`.

Each host gets its own throw-away world under ``base_dir`` (``HOME``, the host's config and
data folders, a work directory); ovhooks is registered the way users do it (``ovhooks install
pi|opencode`` writes the shim file). stdin is closed and every run is bounded by a timeout.
Recipes: ``shared/spec/hosts-more.md`` §2.6-2.7 (Pi), §3.5-3.6 (OpenCode).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Mapping, Sequence

from tests.support.chat_stub import ChatStub
from tests.support.hosts import HostRun, _run, host_environment, install_hooks

# Variables of a Pi or OpenCode session running the tests must not reach the hosts under test.
_FOREIGN = ("PI_", "OPENCODE")


def _clean(base_env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in base_env.items() if not k.startswith(_FOREIGN)}


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
        install_args: Sequence[str] = (),
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
                install_with,
                "pi",
                {"HOME": self.home, "PI_CODING_AGENT_DIR": self.agent_dir},
                install_args,
            )
        self.env = host_environment(
            _clean(base_env),
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


class PiRpc:
    """``pi --mode rpc``: one JSON command per line on stdin, responses and events on stdout.

    One Pi process for several prompts, with commands print mode lacks (``compact``).
    """

    def __init__(self, pi: PiHost, timeout_s: float = 90.0) -> None:
        args = [pi.pi_bin, "--mode", "rpc", "--provider", "stub", "--model", STUB_MODEL]
        self.timeout_s = timeout_s
        self.proc = subprocess.Popen(
            args,
            cwd=pi.workdir,
            env=pi.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.count = 0

    def send(self, command: dict[str, object], until: str) -> None:
        """Send ``command``; read until an event of type ``until`` (``response``: its answer)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.count += 1
        self.proc.stdin.write(json.dumps({"id": str(self.count), **command}) + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + self.timeout_s
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("type") == until or (
                until == "response" and event.get("id") == str(self.count)
            ):
                return
            if time.monotonic() > deadline:
                break
        raise TimeoutError(f"no {until} after {command}")

    def close(self) -> int:
        """Close stdin (Pi shuts down: ``session_shutdown``) and wait for the exit code."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=self.timeout_s)


def opencode_config(api_base: str, context_limit: int | None = None) -> dict[str, object]:
    """``OPENCODE_CONFIG_CONTENT``: one ``@ai-sdk/openai-compatible`` provider on loopback
    (bundled in the binary: nothing is fetched), also used for titles. ``context_limit``
    makes a reply that reports more prompt tokens than that trigger auto-compaction."""
    model: dict[str, object] = {"name": STUB_MODEL}
    if context_limit:
        model["limit"] = {"context": context_limit, "output": 1000}
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "stub": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "stub",
                "options": {"baseURL": api_base, "apiKey": "dummy"},
                "models": {STUB_MODEL: model},
            }
        },
        "model": f"stub/{STUB_MODEL}",
        "small_model": f"stub/{STUB_MODEL}",
        "autoupdate": False,
        "share": "disabled",
    }


class OpenCodeHost:
    """``opencode run`` with its XDG folders under ``base_dir``, against a :class:`ChatStub`."""

    def __init__(
        self,
        opencode_bin: str,
        base_dir: str,
        stub: ChatStub,
        *,
        install_with: str | None,
        base_env: Mapping[str, str],
        extra_env: Mapping[str, str] | None = None,
        workdir: str | None = None,
        install_args: Sequence[str] = (),
        context_limit: int | None = None,
    ) -> None:
        self.opencode_bin = opencode_bin
        self.stub = stub
        self.home = os.path.join(base_dir, "home")
        self.xdg = {
            f"XDG_{kind.upper()}_HOME": os.path.join(base_dir, "xdg", kind)
            for kind in ("config", "data", "cache", "state")
        }
        self.workdir = workdir or os.path.join(base_dir, "work")
        for directory in (self.home, self.workdir, *self.xdg.values()):
            os.makedirs(directory, exist_ok=True)
        if install_with:
            install_hooks(install_with, "opencode", {"HOME": self.home, **self.xdg}, install_args)
        self.env = host_environment(
            _clean(base_env),
            {
                "HOME": self.home,
                **self.xdg,
                "OPENCODE_CONFIG_CONTENT": json.dumps(
                    opencode_config(stub.api_base, context_limit)
                ),
                "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
                **(extra_env or {}),
            },
        )
        self.runs: list[HostRun] = []

    @property
    def db_path(self) -> str:
        return os.path.join(self.xdg["XDG_DATA_HOME"], "opencode", "opencode.db")

    def prompt(
        self, prompt: str, *, continue_session: bool = False, timeout_s: float = 180.0
    ) -> HostRun:
        """One ``opencode run``. The prompt goes on stdin: an argument holding spaces would
        reach the model wrapped in quotes (``run`` quotes arguments when it joins them)."""
        args = [self.opencode_bin, "run", "-m", f"stub/{STUB_MODEL}"]
        if continue_session:
            args.append("-c")
        started = time.monotonic()
        completed = subprocess.run(
            args,
            cwd=self.workdir,
            # OpenCode takes its directory from $PWD when set, not from the process's cwd
            env={**self.env, "PWD": self.workdir},
            input=prompt,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        run = HostRun(
            args,
            completed.returncode,
            completed.stdout,
            completed.stderr,
            time.monotonic() - started,
        )
        self.runs.append(run)
        return run

    def session_ids(self) -> list[str]:
        """Session ids, oldest first, read from OpenCode's database (read-only)."""
        import sqlite3

        if not os.path.exists(self.db_path):
            return []
        with sqlite3.connect(f"file:{self.db_path}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT id FROM session ORDER BY time_created").fetchall()
        return [str(r[0]) for r in rows]
