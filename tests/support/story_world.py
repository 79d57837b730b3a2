"""One host's world for the host stories (``tests/e2e/test_host_stories.py``, issue 38).

A :class:`World` is a fresh folder with the host's home, its stub model, ovhooks installed
into it and a backend (``tests/support/story_backends.py``); the story told in it records
what the tests then read: the host's runs, its sessions, where session 2's requests start,
how long each phase took. The per-host parts are in ``tests/support/story_hosts.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from typing import Any

import pytest

from ovhooks.hosts.registry import session_key
from tests.support import pytest_plugin
from tests.support import story as st
from tests.support.host_world import HostWorld
from tests.support.hosts import HostRun
from tests.support.story_backends import Backend


class World(HostWorld):
    """A fresh world of one host against one backend, under ``base``."""

    def __init__(
        self, request: pytest.FixtureRequest, host: str, backend: Backend, base: str
    ) -> None:
        super().__init__(request, host, base)
        self.backend = backend
        self.env = backend.env(pytest_plugin.real_environ())
        self.stub: Any = None  # the host's stub model, started by its driver
        self.agent: Any = None  # the host's CLI in its home (tests/support/*_host*.py)
        self.host_session_ids: list[str] = []  # session 1, session 2
        self.question_from = 0  # the stub's first request of session 2
        self.cache_from = 0  # the stub's first request of the prompt-cache session
        self.notes: dict[str, Any] = {}  # what a host-specific check needs
        self.seconds: dict[str, float] = {}
        self._phase_started = time.monotonic()

    @property
    def name(self) -> str:
        return f"{self.host} on the {self.backend.name} backend"

    @property
    def runs(self) -> list[HostRun]:
        runs: list[HostRun] = self.agent.runs if self.agent is not None else []
        return runs

    def ov_session(self, index: int) -> str:
        """ovhooks' session key for the host's session ``index`` (0: session 1)."""
        return session_key(self.host, self.host_session_ids[index])

    def ovhooks(self, *args: str) -> dict[str, Any]:
        """``ovhooks <args> --json`` as the user of this world; fails on a non-zero exit."""
        done = subprocess.run(
            [self.ovhooks_bin, *args, "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        doc: dict[str, Any] = json.loads(done.stdout)
        return doc

    def mark(self, phase: str) -> None:
        now = time.monotonic()
        self.seconds[phase] = now - self._phase_started
        self._phase_started = now

    def requests_from(self, start: int) -> list[Any]:
        requests: list[Any] = self.stub.turn_requests()[start:]
        return requests

    def logs(self) -> str:
        return st.read_ovhooks_logs(os.path.join(self.base, "ovhooks-state"))

    def debug(self) -> str:
        runs = "\n".join(run.describe()[-1500:] for run in self.runs)
        return f"{self.name}: host sessions {self.host_session_ids}\n{runs}\n{self.backend.debug()}"
