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

A clone may itself sit in an allowed root, directly in ``/tmp`` say: its parent folder is
then allowed as a whole, ``../shared`` included. So what lies beside the repository is let
through only when it is inside one of the other roots (the interpreter's, the caches), in
pytest's own temp folders (``<temp>/pytest-of-<user>``, where ``tmp_path`` lives, for this
session and for a pytest it starts), or when this session made it (a file it created, a
folder it made, a name it renamed something to: ``tempfile.mkdtemp`` among them); the audit
hook records those as they happen.

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


def beside_repository(roots: tuple[str, ...], repo: str = REPO) -> str:
    """The folder the repository sits in, when an allowed root holds it ("" otherwise)."""
    parent = _as_dir(os.path.dirname(os.path.abspath(repo)))
    return parent if parent.startswith(roots) else ""


def _text_path(path: object) -> str | None:
    if isinstance(path, bytes):
        return os.fsdecode(path)
    if isinstance(path, os.PathLike):
        return str(os.fspath(path))
    return path if isinstance(path, str) else None  # None: a file descriptor


_CREATING = os.O_CREAT | os.O_WRONLY | os.O_RDWR
_PYTEST_TEMP = os.path.join(tempfile.gettempdir(), "pytest-of-")


class OutsideOpens:
    """Records opens outside ``roots`` while armed; beside the repository (``beside``, when a
    root holds it), only roots that do not hold it and what this session made count."""

    def __init__(
        self, roots: tuple[str, ...], beside: str = "", pytest_temp: str = _PYTEST_TEMP
    ) -> None:
        self.roots = roots
        self.beside = beside
        self.pytest_temp = pytest_temp
        self.armed = False
        self.seen: list[str] = []
        self.made: tuple[str, ...] = ()

    def _full(self, path: str) -> str:
        return os.path.normpath(os.path.join(os.getcwd(), path))

    def is_allowed(self, path: str) -> bool:
        full = self._full(path)
        probe = full + os.sep
        if full == "/dev/null":
            return True
        # the folder itself is no sibling: tempfile.TemporaryFile opens it (O_TMPFILE)
        if self.beside and probe.startswith(self.beside) and probe != self.beside:
            own = tuple(r for r in self.roots if not self.beside.startswith(r))
            return probe.startswith((*own, *self.made, self.pytest_temp))
        return probe.startswith(self.roots)

    def record_made(self, event: str, args: tuple[object, ...]) -> None:
        """Note a path this session is about to create beside the repository."""
        if event == "open" and len(args) >= 3:
            flags = args[2]
            target = _text_path(args[0]) if isinstance(flags, int) and flags & _CREATING else None
        elif event == "os.mkdir" and args:
            target = _text_path(args[0])
        elif event in ("os.rename", "os.replace") and len(args) >= 2:
            target = _text_path(args[1])
        else:
            return
        if target is None:
            return
        full = self._full(target)
        if (full + os.sep).startswith(self.beside) and not os.path.lexists(full):
            self.made = (*self.made, _as_dir(full))

    def audit(self, event: str, args: tuple[object, ...]) -> None:
        if not args or event not in ("open", "os.mkdir", "os.rename", "os.replace"):
            return
        if self.beside:
            self.record_made(event, args)
        if event != "open" or not self.armed:
            return
        path = _text_path(args[0])
        if path is None:
            return
        self.armed = False  # the check itself must not re-enter (os.getcwd, normpath)
        try:
            if not self.is_allowed(path):
                self.seen.append(os.path.abspath(path))
        finally:
            self.armed = True


_WATCH = OutsideOpens(allowed_roots(), beside_repository(allowed_roots()))
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
