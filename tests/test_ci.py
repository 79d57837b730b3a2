"""`.ci/run` reports its totals whether it passes or fails, and a run that collects too few
tests fails (issue 11)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _ci_copy(tmp_path: Path, test_rc: int) -> Path:
    """.ci/run in a throw-away tree whose setup passes and whose test command exits test_rc."""
    root = tmp_path / "repo"
    (root / ".ci").mkdir(parents=True)
    (root / "scripts").mkdir()
    shutil.copy(REPO / ".ci" / "run", root / ".ci" / "run")
    (root / "scripts" / "ci-setup.sh").write_text("echo setup-ran\n")
    test = root / "scripts" / "test"
    test.write_text(f"#!/usr/bin/env bash\necho tests-ran min=$OVHOOKS_MIN_TESTS\nexit {test_rc}\n")
    test.chmod(0o755)
    return root


@pytest.mark.parametrize(
    ("rc", "verdict"),
    [(0, "ci: passed"), (1, "ci: FAILED in tests (exit 1)"), (5, "collected no tests")],
)
def test_ci_run_prints_totals_whatever_the_outcome(tmp_path: Path, rc: int, verdict: str) -> None:
    root = _ci_copy(tmp_path, rc)
    completed = subprocess.run(
        ["bash", str(root / ".ci" / "run")], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == rc, completed.stdout + completed.stderr
    last = completed.stdout.strip().splitlines()[-1]
    assert verdict in last and "setup" in last and "tests" in last and "total" in last, last
    assert "min=600" in completed.stdout  # the floor on collected tests is set for CI


@pytest.mark.parametrize("workers", [None, "2"])
def test_too_few_collected_tests_fail_the_run(workers: str | None) -> None:
    spread = ["-n", workers] if workers else []  # scripts/test runs the suite on xdist workers
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *spread,
            "tests/settings/test_config.py",
        ],
        cwd=REPO,
        env={**os.environ, "OVHOOKS_MIN_TESTS": "1000"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode != 0
    assert "fewer than OVHOOKS_MIN_TESTS=1000" in completed.stdout + completed.stderr


def _test_script(
    tmp_path: Path, exits: dict[str, int], mypy_rc: int = 0, uv_rc: int | None = None
) -> tuple[Path, Path]:
    """scripts/test in a throw-away tree whose python, ruff and mypy only log their calls;
    python exits with ``exits[part]`` for a pytest run whose arguments name ``part``, mypy
    with ``mypy_rc`` after printing a line; uv, present unless ``uv_rc`` is None, with it."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "test", root / "scripts" / "test")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    log = tmp_path / "calls.log"
    cases = "".join(f'  *"{part}"*) exit {rc} ;;\n' for part, rc in exits.items())
    for tool in ("python", "ruff", "mypy", *(() if uv_rc is None else ("uv",))):
        stub = bin_dir / tool
        stub.write_text(
            "#!/usr/bin/env bash\n"
            f'echo "{tool} min=${{OVHOOKS_MIN_TESTS:-}} $*" >> {log}\n'
            + (f'case "$*" in\n{cases}esac\n' if tool == "python" else "")
            + (f'echo "mypy says {mypy_rc}"\nexit {mypy_rc}\n' if tool == "mypy" else "")
            + (f"exit {uv_rc}\n" if tool == "uv" else "")
        )
        stub.chmod(0o755)
    return root, log


def _run_test_script(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(root / "scripts" / "test"), "-q"],
        env={**os.environ, "OVHOOKS_MIN_TESTS": "600"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_minimum_test_count_applies_to_the_parallel_part_not_the_chosen_subsets(
    tmp_path: Path,
) -> None:
    """scripts/test runs a chosen subset for the coverage floor, then the suite on two workers,
    then the timing-bound "serial" tests alone; .ci/run's OVHOOKS_MIN_TESTS is for the
    second, the whole suite but those few."""
    root, log = _test_script(tmp_path, {})
    completed = _run_test_script(root)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    runs = [line for line in log.read_text().splitlines() if " -m pytest" in line]
    assert len(runs) == 3, runs
    coverage, parallel, serial = runs
    assert "--cov" in coverage and coverage.startswith("python min= ")
    assert parallel.startswith("python min=600 ") and "-m not serial -n 2" in parallel
    assert serial.startswith("python min= ") and "-m serial -q" in serial and "-n" not in serial


@pytest.mark.parametrize(
    ("parallel_rc", "serial_rc", "expected"),
    [(0, 0, 0), (0, 5, 0), (5, 0, 0), (5, 5, 5), (1, 0, 1), (0, 1, 1), (4, 5, 4)],
)
def test_the_script_fails_when_either_part_fails_or_neither_ran_a_test(
    tmp_path: Path, parallel_rc: int, serial_rc: int, expected: int
) -> None:
    """pytest's 5 (nothing selected) is fine for one part of a narrow run, not for both."""
    root, _ = _test_script(tmp_path, {"not serial": parallel_rc, "-m serial": serial_rc})
    assert _run_test_script(root).returncode == expected


@pytest.mark.parametrize(("mypy_rc", "coverage_rc", "expected"), [(0, 0, 0), (1, 0, 1), (0, 1, 1)])
def test_mypy_beside_the_coverage_floor_fails_the_run_before_the_suite(
    tmp_path: Path, mypy_rc: int, coverage_rc: int, expected: int
) -> None:
    """mypy runs in the background beside the coverage floor; either failing stops the run
    before the suite, and mypy's output is printed either way."""
    root, log = _test_script(tmp_path, {"--cov": coverage_rc}, mypy_rc=mypy_rc)
    completed = _run_test_script(root)
    assert completed.returncode == expected, completed.stdout + completed.stderr
    assert f"mypy says {mypy_rc}" in completed.stdout
    runs = [line for line in log.read_text().splitlines() if " -m pytest" in line]
    assert len(runs) == (3 if expected == 0 else 1), runs


@pytest.mark.parametrize("uv_rc", [None, 0, 1], ids=["no-uv", "uv", "uv-fails"])
def test_the_install_takes_uv_and_falls_back_to_pip(tmp_path: Path, uv_rc: int | None) -> None:
    root, log = _test_script(tmp_path, {}, uv_rc=uv_rc)
    assert _run_test_script(root).returncode == 0
    calls = log.read_text().splitlines()
    by_uv = [c for c in calls if c.startswith("uv ") and "install" in c and "-e .[test]" in c]
    by_pip = [c for c in calls if "-m pip install" in c and "-e .[test]" in c]
    assert len(by_uv) == (0 if uv_rc is None else 1), calls
    assert len(by_pip) == (0 if uv_rc == 0 else 1), calls
    assert all("--no-compile" in c for c in by_pip)
