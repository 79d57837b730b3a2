"""What every real-CLI world of one host knows (the fail-open suite's, the stories').

A world is a fresh folder of one host under ``base``; it finds the host's real CLI where
``scripts/ci-setup.sh`` put it and the ``ovhooks`` console script to install with.
"""

from __future__ import annotations

import os

import pytest

from tests.support import wave4_hosts


class HostWorld:
    """A fresh world for ``host`` under ``base``; fixtures come from ``request``."""

    def __init__(self, request: pytest.FixtureRequest, host: str, base: str) -> None:
        self.request = request
        self.host = host
        self.base = base

    @property
    def ovhooks_bin(self) -> str:
        return str(self.request.getfixturevalue("ovhooks_bin"))

    def cli(self) -> str:
        """The host's real CLI, where ``scripts/ci-setup.sh`` put it (fails in CI if absent)."""
        if self.host in wave4_hosts.HOST_CLASSES:
            return wave4_hosts.find_cli(self.host)
        return str(self.request.getfixturevalue(f"{self.host}_cli"))

    def folder(self, name: str) -> str:
        return os.path.join(self.base, name)
