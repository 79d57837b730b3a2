"""``ovhooks version``: the same answer as the package, without Typer, about as fast as Python.

Hosts and scripts ask for it several times a session, so it takes the hook path's road in
``__main__``: the check here is twofold. It imports nothing beyond ``ovhooks`` itself (exact,
never flaky), and its median wall time over interleaved runs stays within 3x the median of
``python -c pass`` measured in the same loop (loose on purpose: the Typer road measured
8.7x here, the fast one 1.1x, on a shared 2-core machine).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ovhooks import __version__

DRIVER = """
import json, sys
baseline = set(sys.modules)
sys.argv = ["ovhooks", "version"]
from ovhooks.__main__ import main
try:
    main()
finally:
    sys.stderr.write(json.dumps(sorted(set(sys.modules) - baseline)))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def test_version_prints_the_package_version_and_imports_no_typer(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER],
        check=False,
        capture_output=True,
        text=True,
        env=_env(),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == __version__ + "\n"
    loaded = set(json.loads(done.stderr))
    assert loaded <= {"ovhooks", "ovhooks.__main__"}, sorted(loaded)


def _wall(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=_env(), cwd=cwd)
    return time.perf_counter() - start


def test_version_costs_about_one_interpreter_start(tmp_path: Path) -> None:
    version = [sys.executable, "-m", "ovhooks", "version"]
    floor = [sys.executable, "-c", "pass"]
    _wall(version, tmp_path)  # bytecode compiled once, not timed
    ours, bare = [], []
    for _ in range(7):  # interleaved: a load spike hits both columns alike
        ours.append(_wall(version, tmp_path))
        bare.append(_wall(floor, tmp_path))
    ratio = statistics.median(ours) / statistics.median(bare)
    assert ratio <= 3.0, f"version {statistics.median(ours) * 1000:.0f} ms, {ratio:.1f}x"
