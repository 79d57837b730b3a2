"""Import-time measurement for the capture tests: a fresh interpreter, bytecode cached."""

from __future__ import annotations

import os
import subprocess
import sys


def import_ms(module: str, pycache: str, runs: int = 3) -> float:
    """Best-of-``runs`` milliseconds to import ``module`` in a fresh process.

    The first run compiles into ``pycache`` (outside the checkout) and is discarded: hooks run
    from installed, byte-compiled packages, so compile time is not what users pay.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = (
        "import time; t = time.perf_counter(); import "
        + module
        + "; print((time.perf_counter() - t) * 1000)"
    )
    cmd = [sys.executable, "-X", f"pycache_prefix={pycache}", "-c", code]
    results = []
    for _ in range(runs + 1):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
        results.append(float(out))
    return min(results[1:])
