"""``ovhooks mcp`` registered in a host's own JSON config, checked by the real host: Gemini CLI
0.61.0 (``mcpServers`` in settings.json), OpenCode 1.18.33 (``mcp`` in opencode.json), Qwen Code
0.24.4 (``mcpServers`` in ~/.qwen/settings.json), Factory Droid 0.225 (~/.factory/mcp.json) and
GitHub Copilot CLI 1.0.102 ($COPILOT_HOME/mcp-config.json).

``ovhooks install`` registers the server as a user does it (a throw-away home); the host's own
``mcp list`` must start it and report it connected; ``ovhooks uninstall`` takes it back and
the host lists it no more. Every registered host whose spec names one of these shapes runs
here, through its ``<name>_cli`` fixture.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from ovhooks.hosts import registry
from tests.support import wave4_hosts

pytestmark = [pytest.mark.hosts_e2e]
# Copilot CLI 1.0.102's `mcp list` names the configured servers without starting them.
LISTS_WITHOUT_CONNECTING = {"copilot"}


_wave4_cli = wave4_hosts.find_cli


@pytest.fixture
def copilot_cli() -> str:
    return _wave4_cli("copilot")


@pytest.fixture
def qwen_cli() -> str:
    return _wave4_cli("qwen")


@pytest.fixture
def droid_cli() -> str:
    return _wave4_cli("droid")


JSON_SHAPES = ("mcp_servers", "opencode_mcp")
HOSTS = [h for h in registry.HOSTS if registry.spec(h).mcp in JSON_SHAPES]


def _run(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 180) -> str:
    done = subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{argv}: {done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def _ovhooks_line(listing: str) -> str:
    return next((line for line in listing.splitlines() if "ovhooks" in line), "")


@pytest.mark.parametrize("host", HOSTS)
def test_the_host_starts_the_registered_server_and_forgets_it_after_uninstall(
    host: str, ovhooks_bin: str, isolated_home: Path, request: pytest.FixtureRequest
) -> None:
    try:
        cli = str(request.getfixturevalue(f"{host}_cli"))
    except pytest.FixtureLookupError:  # the host's CLI rig has no `mcp list` check yet
        pytest.skip(f"no {host}_cli fixture: its mcpServers entry is checked by fixture tests only")
    project = isolated_home.parent / "project"
    (project / ".git").mkdir(parents=True)
    env = {
        **os.environ,
        "OVHOOKS_BACKEND": "local",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",  # user servers load in a trusted folder only
        "COPILOT_HOME": str(isolated_home / ".copilot"),
        "COPILOT_OFFLINE": "true",
    }
    _run([ovhooks_bin, "install", host], env, project)
    listed = _ovhooks_line(_run([cli, "mcp", "list"], env, project))
    if host in LISTS_WITHOUT_CONNECTING:
        assert listed.split() == ["ovhooks", "(local)"], listed
    else:  # started through the launcher that bounds its start (hosts/launch.py)
        assert "connected" in listed.lower().replace("disconnected", ""), listed
    _run([ovhooks_bin, "uninstall", host], env, project)
    assert not _ovhooks_line(_run([cli, "mcp", "list"], env, project))


HUNG = "#!/bin/sh\nexec sleep 3600\n"


def test_a_hung_memory_server_delays_gemini_by_seconds_not_minutes(
    ovhooks_bin: str, isolated_home: Path, gemini_cli: str
) -> None:
    """The MCP server is started by Gemini, not through the hook launcher: the timeout in its
    entry bounds the connect (Gemini CLI 0.61 waits 10 minutes without one)."""
    project = isolated_home.parent / "project"
    (project / ".git").mkdir(parents=True)
    hung = isolated_home.parent / "hung-ovhooks"
    hung.write_text(HUNG)
    hung.chmod(0o755)
    env = {**os.environ, "OVHOOKS_BACKEND": "local", "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    _run([ovhooks_bin, "install", "gemini", "--exe", str(hung)], env, project)
    started = time.monotonic()
    listed = _ovhooks_line(_run([gemini_cli, "mcp", "list"], env, project, timeout=240))
    seconds = time.monotonic() - started
    assert listed and "connected" not in listed.lower().replace("disconnected", ""), listed
    assert seconds < 15 + 30, seconds  # the entry's 15 s, and Gemini's own start on a busy box
    subprocess.run(["pkill", "-f", str(hung)], check=False)
