"""The fail-open suite's per-host drivers (``tests/e2e/test_fail_open_hosts.py``, issue 38).

A driver knows two things about its host: how to install ovhooks into a fresh world of it
(``ovhooks install <host> --exe EXE``, exactly as a user does, with EXE a stand-in)
and how to run one prompt with the host's real CLI, offline against the host's stub model.
Everything else (the stand-ins, the checks) is the same for every host and lives in the test
and in ``tests/support/standins.py``.

``DRIVERS`` must name every host of ``ovhooks.hosts.registry.HOSTS``: :func:`start` fails
loudly for a host without one, so a new host cannot pass the suite by being left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import pytest

from tests.support import pytest_plugin, wave4_hosts
from tests.support.chat_stub import ChatStub
from tests.support.gemini_host import GeminiHost
from tests.support.gemini_stub import GeminiStub
from tests.support.host_stubs import MessagesStub, ResponsesStub
from tests.support.host_world import HostWorld
from tests.support.hosts import ClaudeHost, CodexHost, HostRun, install_hooks
from tests.support.shim_hosts import OpenCodeHost, PiHost

# Hooks and the memory server, as users install it: the host starts `<exe> mcp` through
# install's launcher (hosts/mcp_launch.sh), so a hung ovhooks there is bounded as well.
INSTALL_ARGS: tuple[str, ...] = ()

Prompt = Callable[[str], HostRun]
Driver = Callable[["World", ExitStack], Prompt]


class World(HostWorld):
    """A fresh world for one host under ``base``, with ovhooks registered as ``exe``."""

    def __init__(self, request: pytest.FixtureRequest, host: str, base: str, exe: str) -> None:
        super().__init__(request, host, base)
        self.exe = exe
        self.runtime_dir = os.path.join(base, "run")  # the launcher's hang markers go here
        os.makedirs(self.runtime_dir, exist_ok=True)
        # The runner's own ovhooks and XDG folders must not reach the host or the stand-in.
        dropped = ("OVHOOKS_", "OPENVIKING_", "XDG_")
        self.env = {
            k: v for k, v in pytest_plugin.real_environ().items() if not k.startswith(dropped)
        }
        self.env["XDG_RUNTIME_DIR"] = self.runtime_dir

    @property
    def install_args(self) -> list[str]:
        return ["--exe", self.exe, *INSTALL_ARGS]


def _claude(world: World, stack: ExitStack) -> Prompt:
    claude = ClaudeHost(
        world.cli(), world.folder("claude"), stack.enter_context(MessagesStub()), base_env=world.env
    )
    home = {"HOME": claude.home, "CLAUDE_CONFIG_DIR": claude.config_dir}
    install_hooks(world.ovhooks_bin, "claude", home, world.install_args)
    return lambda text: claude.prompt(text, tools=False)


def _gemini(world: World, stack: ExitStack) -> Prompt:
    gemini = GeminiHost(
        world.cli(), world.folder("gemini"), stack.enter_context(GeminiStub()), base_env=world.env
    )
    install_hooks(world.ovhooks_bin, "gemini", {"HOME": gemini.home}, world.install_args)
    return gemini.prompt


def _installed_by_host(
    host_class: Callable[..., Any], stub_class: Callable[[], Any], method: str = "prompt"
) -> Driver:
    """A driver for a host class that runs ``ovhooks install`` itself (``install_with``):
    Codex (``codex exec``), Pi (``pi -p``), OpenCode (``opencode run``), Copilot (``-p``),
    Qwen Code (``-p``) and Droid (``droid exec``)."""

    def start(world: World, stack: ExitStack) -> Prompt:
        host = host_class(
            world.cli(),
            world.folder(world.host),
            stack.enter_context(stub_class()),
            install_with=world.ovhooks_bin,
            install_args=world.install_args,
            base_env=world.env,
        )
        prompt: Prompt = getattr(host, method)
        return prompt

    return start


DRIVERS: dict[str, Driver] = {
    "codex": _installed_by_host(CodexHost, ResponsesStub, "exec"),
    "claude": _claude,
    "gemini": _gemini,
    "pi": _installed_by_host(PiHost, ChatStub),
    "opencode": _installed_by_host(OpenCodeHost, ChatStub),
    "copilot": _installed_by_host(wave4_hosts.CopilotHost, ChatStub),
    "qwen": _installed_by_host(wave4_hosts.QwenHost, ChatStub),
    "droid": _installed_by_host(wave4_hosts.DroidHost, ChatStub),
}


def start(world: World, stack: ExitStack) -> Prompt:
    """Install ovhooks into ``world`` and return its one-prompt runner (stubs on ``stack``)."""
    driver = DRIVERS.get(world.host)
    if driver is None:
        raise AssertionError(
            f"no fail-open driver for host {world.host!r}: add one to DRIVERS in "
            "tests/support/failopen_hosts.py (how to install ovhooks and run one prompt)"
        )
    return driver(world, stack)
