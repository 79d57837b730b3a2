"""Fail the session when it leaves an embedding service running (pytest plugin).

A test that starts ``ovhooks _embedd`` (directly or through a hook that launches one) must end
it: a service left behind holds ~150 MiB until its idle time runs out, and a suite run again
and again piled them up (issue 40). At the session's end every process whose command line
names ``_embedd`` and whose state dir (``--state-dir``, or ``OVHOOKS_STATE_DIR``/``HOME`` in
its environment) lies under this session's temp root is ended by its pid, and the session
fails naming them. Services of other sessions (other temp roots) are left alone.
"""

from __future__ import annotations

import os
import signal
import time

import pytest


def _read(path: str) -> list[str]:
    try:
        with open(path, "rb") as fh:
            return [part.decode("utf-8", "replace") for part in fh.read().split(b"\0") if part]
    except OSError:
        return []


def _places(pid: int) -> list[str]:
    """The folders a process says it works in: its ``--state-dir`` and its environment's."""
    args = _read(f"/proc/{pid}/cmdline")
    places = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--state-dir"]
    for entry in _read(f"/proc/{pid}/environ"):
        name, _, value = entry.partition("=")
        if name in ("OVHOOKS_STATE_DIR", "HOME"):
            places.append(value)
    return places


def _under(path: str, root: str) -> bool:
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root + os.sep)


def services_under(root: str) -> list[tuple[int, str]]:
    """``(pid, command line)`` of each embedding service working under ``root``."""
    found: list[tuple[int, str]] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        args = _read(f"/proc/{name}/cmdline")
        if not any("_embedd" in arg for arg in args):
            continue
        if any(_under(place, root) for place in _places(int(name))):
            found.append((int(name), " ".join(args)))
    return found


def end(pids: list[int], grace_s: float = 5.0) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            continue
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}/cmdline") for p in pids):
        time.sleep(0.1)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is None or not os.path.isdir("/proc"):
        return
    root = str(factory.getbasetemp())
    left = services_under(root)
    if not left:
        return
    end([pid for pid, _ in left])
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"embedding services left running by this session (ended now): {len(left)}"]
    lines += [f"  pid {pid}: {command}" for pid, command in left]
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line("\n".join(lines), red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
