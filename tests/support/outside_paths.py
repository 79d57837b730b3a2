"""Fail any test that opens a file outside the repository (pytest plugin).

A clone of the project must pass its tests wherever it sits, so nothing a test reads may live
beside the repository (``../shared``) or in the real home directory. An audit hook
(``sys.addaudithook``) sees every ``open`` this process makes: built-in ``open``, ``os.open``
and the import system alike. Opens under an allowed root are let through; any other is
recorded, and the test that made it fails at teardown naming the path.

Allowed: the repository, the interpreter's own prefixes (venv, site-packages, stdlib), the
temp dir (pytest's ``tmp_path`` lives there), ``/dev``, ``/proc``, the caches the real-world
rig uses under the real ``~/.cache/ovhooks-ci``, and the few system files the network and
TLS stacks read (certificates, resolver, time zone).

Child processes (hooks, host CLIs, servers) are not watched: what they read comes from the
test, which is.
"""

from __future__ import annotations

import os
import sys
import sysconfig
import tempfile
from collections.abc import Iterator

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SYSTEM_FILES = (
    "/dev/",
    "/proc/",
    "/sys/",
    "/etc/ssl/",
    "/etc/pki/",
    "/usr/lib/ssl/",
    "/usr/share/ca-certificates/",
    "/etc/ca-certificates/",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/host.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/localtime",
    "/usr/share/zoneinfo/",
    "/etc/mime.types",
    "/etc/passwd",
    "/etc/group",
    "/etc/os-release",
    "/usr/lib/os-release",
    "/usr/lib/locale/",
    "/usr/share/locale/",
)


def _real_home() -> str:
    # Read at import, before the suite's isolation fixture points HOME at a temp dir.
    return os.environ.get("HOME") or os.path.expanduser("~")


def _as_dir(path: str) -> str:
    return os.path.join(os.path.abspath(path), "")


def _git_dirs(repo: str) -> list[str]:
    """The repository's own git dir(s) when ``.git`` is a worktree link file."""
    link = os.path.join(repo, ".git")
    if not os.path.isfile(link):
        return []
    try:
        with open(link, encoding="utf-8") as handle:
            first = handle.readline().strip()
    except OSError:
        return []
    if not first.startswith("gitdir:"):
        return []
    gitdir = os.path.normpath(os.path.join(repo, first[len("gitdir:") :].strip()))
    # .../.git/worktrees/<name> -> the common dir .../.git holds config and objects
    common = os.path.dirname(os.path.dirname(gitdir))
    return [gitdir, common]


def allowed_roots(environ: dict[str, str] | None = None) -> tuple[str, ...]:
    env = dict(os.environ) if environ is None else environ
    home = env.get("HOME") or _real_home()
    cache = env.get("OVHOOKS_CI_CACHE") or os.path.join(home, ".cache", "ovhooks-ci")
    roots = {
        _as_dir(REPO),
        _as_dir(tempfile.gettempdir()),
        _as_dir(cache),
        *(_as_dir(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)),
        *(_as_dir(p) for p in sysconfig.get_paths().values()),
    }
    # A linked worktree's `.git` is a file naming the main checkout's git dir: that is still
    # this repository (code that reads the cwd's git config goes there).
    roots.update(_as_dir(p) for p in _git_dirs(REPO))
    for variable in ("OVHOOKS_OV_VENV", "OVHOOKS_HOSTCLI_DIR", "PYTEST_DEBUG_TEMPROOT"):
        if env.get(variable):
            roots.add(_as_dir(env[variable]))
    return (*sorted(roots), *_SYSTEM_FILES)


class OutsideOpens:
    """Records opens outside ``roots`` while armed."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots = roots
        self.armed = False
        self.seen: list[str] = []

    def is_allowed(self, path: str) -> bool:
        full = os.path.normpath(os.path.join(os.getcwd(), path))
        return full == "/dev/null" or (full + os.sep).startswith(self.roots)

    def audit(self, event: str, args: tuple[object, ...]) -> None:
        if event != "open" or not self.armed or not args:
            return
        path = args[0]
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        elif isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str):  # a file descriptor
            return
        self.armed = False  # the check itself must not re-enter (os.getcwd, normpath)
        try:
            if not self.is_allowed(path):
                self.seen.append(os.path.abspath(path))
        finally:
            self.armed = True


_WATCH = OutsideOpens(allowed_roots())
sys.addaudithook(_WATCH.audit)


def pytest_configure(config: pytest.Config) -> None:
    base = config.option.basetemp
    if base:
        _WATCH.roots = (*_WATCH.roots, _as_dir(str(base)))
    # Armed from here on: opens made while collecting or by session fixtures are reported by
    # the next test that finishes.
    _WATCH.armed = True


@pytest.fixture(autouse=True)
def _no_outside_opens() -> Iterator[None]:
    yield
    outside = sorted(set(_WATCH.seen))
    _WATCH.seen.clear()
    if outside:
        pytest.fail(
            "this test opened paths outside the repository (record what it needs into "
            "tests/fixtures/): " + ", ".join(outside[:10]),
            pytrace=False,
        )
