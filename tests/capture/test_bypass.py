from __future__ import annotations

import os
from pathlib import Path

import pytest

from ovhooks.capture.bypass import is_bypassed, matches
from tests.support.timing import import_ms


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("/tmp/**", "/tmp", True),
        ("/tmp/**", "/tmp/x/y", True),
        ("/tmp/**", "/tmpfoo", False),
        ("/tmp/*", "/tmp/x", True),
        ("/tmp/*", "/tmp/x/y", False),  # * stays within one segment
        ("**/scratch/**", "/home/me/scratch", True),
        ("**/scratch/**", "/home/me/scratch/a/b", True),
        ("**/scratch/**", "/home/me/scratchpad", False),
        ("/home/*/secret-*", "/home/me/secret-app", True),
        ("/home/*/secret-*", "/home/me/app", False),
        ("/work/proj?", "/work/proj1", True),
        ("/work/proj?", "/work/proj12", False),
        ("/srv/client", "/srv/client", True),  # no wildcard: the directory...
        ("/srv/client", "/srv/client/api", True),  # ...and everything below it
        ("/srv/client", "/srv/client-b", False),
        ("/srv/a.b", "/srv/aXb", False),  # "." is literal
        ("/srv/[x]", "/srv/[x]", True),  # brackets are literal
        ("/tmp/**/", "/tmp/a", True),  # trailing slash ignored
        ("/srv/**cache", "/srv/a/b/cache", True),  # ** inside a name crosses segments
        ("/srv/**cache", "/srv/a/b/cached", False),
        ("/", "/", True),  # a one-character pattern keeps its slash
    ],
)
def test_glob_rules(pattern: str, path: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


def test_tilde_is_home(isolated_home: object) -> None:
    home = os.path.expanduser("~")
    assert is_bypassed(os.path.join(home, "scratch", "x"), ["~/scratch/**"])
    assert is_bypassed("~/scratch", ["~/scratch/**"])
    assert not is_bypassed(os.path.join(home, "work"), ["~/scratch/**"])


def test_path_is_normalised() -> None:
    assert is_bypassed("/tmp/a/../b/", ["/tmp/b"])


def test_empty_inputs() -> None:
    assert not is_bypassed("", ["/**"])
    assert not is_bypassed("/x", [])
    assert not is_bypassed("/x", ["", "  "])
    assert is_bypassed("/x", ["", "/**"])


def test_import_is_cheap(tmp_path: Path) -> None:
    best = import_ms("ovhooks.capture.bypass", str(tmp_path / "pycache"))
    print(f"import ovhooks.capture.bypass: {best:.2f} ms (best of 3, bytecode cached)")
    assert best < 10
