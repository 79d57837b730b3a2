"""Suite-wide fixtures: no test may touch the real home directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_openviking import FakeOpenViking

pytest_plugins = [
    "tests.support.browser",
    "tests.support.embedd_leaks",
    "tests.support.outside_paths",
    "tests.support.pytest_plugin",
    "tests.support.stores",
]

# Recorded from the real hosts by scripts/record_host_fixtures.py; the repository carries them
# so a clone anywhere runs its tests without anything beside it.
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "host-samples"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME, XDG dirs and every ovhooks/OpenViking location at a temp dir.

    Hooks and commands receive the environment from the entry point, so tests build their
    environment from ``os.environ`` after this fixture has run.
    """
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    for var in list(os.environ):
        if var.startswith(("OVHOOKS_", "OPENVIKING_", "CODEX_", "CLAUDE_")):
            monkeypatch.delenv(var, raising=False)
        # a developer's proxy would route the loopback test servers through it (as curl does)
        if var.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
            monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OVHOOKS_STATE_DIR", str(tmp_path / "state"))
    # The hook launcher's hang markers (hosts/launch.py) go to $XDG_RUNTIME_DIR, else /tmp:
    # a test that runs hooks through it keeps them in its own folder, never in /tmp, where a
    # marker named by a pid that comes back could reach another run's host.
    runtime = tmp_path / "xdg-runtime"  # a name no test makes for itself
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    # Recall by meaning starts an embedding service (a process loading a model): only the
    # tests of it (tests/semantic) switch it on.
    monkeypatch.setenv("OVHOOKS_SEMANTIC", "off")
    monkeypatch.setenv("OVHOOKS_DATA_DIR", str(tmp_path / "data"))
    config = tmp_path / "ovhooks-config.toml"
    config.write_text("")  # present and empty: a named config that is missing is warned about
    monkeypatch.setenv("OVHOOKS_CONFIG", str(config))
    monkeypatch.setenv("OPENVIKING_CLI_CONFIG_FILE", str(tmp_path / "ovcli.conf"))
    return home


@pytest.fixture
def host_samples() -> Path:
    """Genuine host payloads, transcripts and model requests in ``tests/fixtures/host-samples``."""
    if not FIXTURES.is_dir():
        pytest.fail(f"host samples not found at {FIXTURES}")
    return FIXTURES


@pytest.fixture
def fake_ov() -> Iterator[FakeOpenViking]:
    """An in-memory OpenViking look-alike on a loopback port (see tests/support)."""
    server = FakeOpenViking().start()
    yield server
    server.stop()
