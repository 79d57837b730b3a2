"""The suite reads nothing from outside the repository, so any clone can run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support import outside_paths

REPO = Path(__file__).resolve().parents[1]
PROBE = "/ovhooks-outside-probe/host-samples/Stop.json"

INNER_TEST = f"""
import os

def test_reads_a_sample_beside_the_repository():
    try:
        open({PROBE!r}, encoding="utf-8").close()
    except OSError:
        pass  # missing or not: the attempt alone must fail the test

def test_reads_its_own_tmp_path(tmp_path):
    (tmp_path / "x.json").write_text("{{}}")
    assert (tmp_path / "x.json").read_text() == "{{}}"

def test_reads_the_repository():
    with open(os.path.join({str(REPO)!r}, "pyproject.toml"), encoding="utf-8") as handle:
        assert "ovhooks" in handle.read()
"""


def test_a_test_that_opens_a_path_outside_the_repository_fails(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "test_inner.py").write_text(INNER_TEST, encoding="utf-8")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.support.outside_paths",
            "--rootdir",
            str(inner),
            str(inner / "test_inner.py"),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    # the offending test runs, then errors at teardown
    assert "3 passed, 1 error" in output, output
    assert "outside the repository" in output and PROBE in output, output


def test_the_suite_carries_its_host_samples() -> None:
    samples = REPO / "tests" / "fixtures" / "host-samples"
    for host in ("codex", "claude"):
        assert sorted((samples / host / "hook-payloads").glob("*.json")), host
        assert sorted((samples / host / "stub-requests").glob("*.json")), host


def test_allowed_roots_exclude_the_directory_beside_the_repository() -> None:
    watch = outside_paths.OutsideOpens(outside_paths.allowed_roots({"HOME": "/nonexistent-home"}))
    assert watch.is_allowed(str(REPO / "tests" / "fixtures" / "x.json"))
    assert watch.is_allowed("/dev/null")
    assert not watch.is_allowed("/nonexistent-home/.codex/config.toml")
    assert watch.is_allowed("/nonexistent-home/.cache/ovhooks-ci/ov-0.5.2/bin/python")
    if not str(REPO.parent).startswith(outside_paths.allowed_roots({"HOME": "/x"})):
        assert not watch.is_allowed(str(REPO.parent / "shared" / "fixtures" / "Stop.json"))
