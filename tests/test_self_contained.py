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
    roots = outside_paths.allowed_roots({"HOME": "/nonexistent-home"})
    watch = outside_paths.OutsideOpens(roots, outside_paths.beside_repository(roots))
    assert watch.is_allowed(str(REPO / "tests" / "fixtures" / "x.json"))
    assert watch.is_allowed("/dev/null")
    assert not watch.is_allowed("/nonexistent-home/.codex/config.toml")
    assert watch.is_allowed("/nonexistent-home/.cache/ovhooks-ci/ov-0.5.2/bin/python")
    # wherever the clone sits, /tmp directly included (its parent is then an allowed root)
    assert not watch.is_allowed(str(REPO.parent / "shared" / "fixtures" / "Stop.json"))
    assert not watch.is_allowed(str(REPO) + "-other/x.json")


def test_beside_a_clone_in_the_temp_dir_only_what_the_session_made_is_allowed(
    tmp_path: Path,
) -> None:
    """A clone directly in the temp dir, played in tmp_path: its parent is an allowed root,
    yet what lay beside it before the session is not the test's to read."""
    temp, clone = tmp_path / "tmp", tmp_path / "tmp" / "ovh-clone-x"
    (temp / "shared" / "fixtures").mkdir(parents=True)
    clone.mkdir()
    roots = (f"{clone}/", f"{temp}/", "/opt/venv/")
    beside = outside_paths.beside_repository(roots, str(clone))
    assert beside == f"{temp}/"
    assert outside_paths.beside_repository(("/opt/venv/",), str(clone)) == ""
    watch = outside_paths.OutsideOpens(roots, beside, f"{temp}/pytest-of-")
    assert watch.is_allowed(f"{clone}/pyproject.toml")
    assert watch.is_allowed(f"{temp}/pytest-of-root/pytest-3/test_x0/inner/test_inner.py")
    assert watch.is_allowed("/opt/venv/lib/site.py")
    assert not watch.is_allowed(f"{temp}/shared/fixtures/Stop.json")
    assert not watch.is_allowed(f"{temp}/not-yet-made/x.json")
    assert watch.is_allowed(str(temp))  # the folder itself (TemporaryFile opens it: O_TMPFILE)
    # made by the session: a folder (mkdtemp), a created file, a rename's target
    watch.audit("os.mkdir", (f"{temp}/ovhooks-dry-run-1", 0o700, None))
    watch.audit("open", (f"{temp}/job.json", None, os.O_WRONLY | os.O_CREAT | os.O_EXCL))
    watch.audit("os.replace", (f"{clone}/a.tmp", f"{temp}/moved.json", None, None))
    assert watch.is_allowed(f"{temp}/ovhooks-dry-run-1/recall/state.json")
    assert watch.is_allowed(f"{temp}/job.json") and watch.is_allowed(f"{temp}/moved.json")
    # what existed before is not made by opening it for writing or "making" it again
    watch.audit("os.mkdir", (f"{temp}/shared", 0o700, None))
    watch.audit("open", (f"{temp}/shared/fixtures", "r", os.O_RDONLY))
    assert not watch.is_allowed(f"{temp}/shared/fixtures/Stop.json")
    assert watch.made == (f"{temp}/ovhooks-dry-run-1/", f"{temp}/job.json/", f"{temp}/moved.json/")
