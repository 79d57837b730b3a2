"""Every host fails open, whatever happens to ovhooks (issue 38), with the real CLIs, offline.

For each host, ovhooks is installed the way users do it (``ovhooks install <host> --exe
<path>``) and the path then holds a stand-in: nothing (a moved venv), a broken ovhooks (a
traceback on stderr and exit 2, which Claude Code and Codex read as "block" and Gemini as a
deny), or a hung one (it starts a child and waits forever). One prompt each: the agent must
answer it; a hung ovhooks may add at most 6 s to the prompt compared with a missing one; and
10 s after the host exits, no process the stand-in started may be left.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from tests.support import pytest_plugin
from tests.support.chat_stub import ChatStub
from tests.support.gemini_host import GeminiHost
from tests.support.gemini_stub import GeminiStub
from tests.support.host_stubs import MessagesStub, ResponsesStub
from tests.support.hosts import ClaudeHost, CodexHost, HostRun, install_hooks
from tests.support.shim_hosts import OpenCodeHost, PiHost

pytestmark = [pytest.mark.hosts_e2e]

HOSTS = ["codex", "claude", "gemini", "pi", "opencode"]
MAX_ADDED_S = 6.0
LEFTOVER_GRACE_S = 10.0
BROKEN = "echo 'Traceback (most recent call last): ovhooks is broken' >&2\nexit 2\n"
HUNG = 'sleep 600 &\necho $! >>"$(dirname "$0")/pids"\necho $$ >>"$(dirname "$0")/pids"\nwait\n'

Run = Callable[[], HostRun]


def _standin(folder: Path, case: str) -> None:
    """Put the ``case`` stand-in at ``folder/ovhooks`` (nothing for ``missing``)."""
    exe = folder / "ovhooks"
    if exe.exists():
        exe.unlink()
    if case == "missing":
        return
    exe.write_text("#!/bin/sh\n" + (BROKEN if case == "broken" else HUNG), encoding="utf-8")
    exe.chmod(0o755)


@contextmanager
def _host(host: str, base: Path, exe: str, request: pytest.FixtureRequest) -> Iterator[Run]:
    """A fresh ``host`` world under ``base`` with ovhooks installed as ``exe``; its prompt."""
    ovhooks_bin = str(request.getfixturevalue("ovhooks_bin"))
    cli = str(request.getfixturevalue(f"{host}_cli"))
    env = {**pytest_plugin.real_environ(), "XDG_RUNTIME_DIR": str(base / "run")}
    os.makedirs(base / "run", exist_ok=True)
    args = ["--exe", exe, "--no-mcp"]  # the hooks only: a hung `ovhooks mcp` is another matter
    with ExitStack() as stack:
        if host == "codex":
            codex_stub = stack.enter_context(ResponsesStub())
            codex = CodexHost(
                cli,
                str(base),
                codex_stub,
                install_with=ovhooks_bin,
                install_args=args,
                base_env=env,
            )
            yield lambda: codex.exec("Say hello.")
        elif host == "claude":
            claude = ClaudeHost(cli, str(base), stack.enter_context(MessagesStub()), base_env=env)
            home = {"HOME": claude.home, "CLAUDE_CONFIG_DIR": claude.config_dir}
            install_hooks(ovhooks_bin, "claude", home, args)
            yield lambda: claude.prompt("Say hello.", tools=False)
        elif host == "gemini":
            gemini = GeminiHost(cli, str(base), stack.enter_context(GeminiStub()), base_env=env)
            install_hooks(ovhooks_bin, "gemini", {"HOME": gemini.home}, args)
            yield lambda: gemini.prompt("Say hello.")
        elif host == "pi":
            pi = PiHost(
                cli,
                str(base),
                stack.enter_context(ChatStub()),
                install_with=ovhooks_bin,
                install_args=args,
                base_env=env,
            )
            yield lambda: pi.prompt("Say hello.")
        else:
            opencode = OpenCodeHost(
                cli,
                str(base),
                stack.enter_context(ChatStub()),
                install_with=ovhooks_bin,
                install_args=args,
                base_env=env,
            )
            yield lambda: opencode.prompt("Say hello.")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def _left_after(pids_file: Path, exited_at: float) -> list[int]:
    """The stand-in's processes still alive ``LEFTOVER_GRACE_S`` after the host exited."""
    pids = [int(p) for p in pids_file.read_text().split()] if pids_file.exists() else []
    while time.monotonic() < exited_at + LEFTOVER_GRACE_S:
        if not [p for p in pids if _alive(p)]:
            return []
        time.sleep(0.2)
    return [p for p in pids if _alive(p)]


@pytest.mark.parametrize("host", HOSTS)
def test_the_agent_answers_whatever_happens_to_ovhooks(
    host: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    folder = tmp_path / "venv-bin"
    folder.mkdir()
    exe = str(folder / "ovhooks")
    seconds: dict[str, float] = {}
    with _host(host, tmp_path / "world", exe, request) as prompt:
        _standin(folder, "missing")
        prompt()  # warm-up: OpenCode installs its plugin dependencies on a first start
        for case in ("missing", "broken", "hung"):
            _standin(folder, case)
            run = prompt()
            exited_at = time.monotonic()
            assert run.returncode == 0, f"{case}: {run.describe()}"
            assert "STUB-REPLY" in run.stdout, f"{case}: no answer\n{run.describe()}"
            seconds[case] = run.seconds
            label = f"fail-open {host}: one prompt, ovhooks {case}"
            pytest_plugin.record_timing(label, run.seconds)
            if case == "hung":
                assert (folder / "pids").exists(), "the hung stand-in never ran"
                left = _left_after(folder / "pids", exited_at)
                assert not left, f"{host}: processes left {LEFTOVER_GRACE_S} s after: {left}"
    added = seconds["hung"] - seconds["missing"]
    pytest_plugin.record_timing(f"fail-open {host}: time a hung ovhooks adds", added)
    assert added <= MAX_ADDED_S, f"{host}: a hung ovhooks added {added:.1f} s ({seconds})"
