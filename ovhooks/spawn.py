"""Running work in a detached grandchild: the one primitive every background start shares.

The worker's hand-off (``worker.detach``), recall's calibration probes and the embedding
service's start all use it; it imports nothing of ovhooks, so the backend and recall can
start background work without importing the worker (no circle, no upward import).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def run_detached(work: Callable[[], object]) -> int:
    """Run ``work`` in a detached grandchild of this process and return at once.

    The grandchild closes the host's pipes (so the host is not kept waiting) and leaves the
    host's process group (so a host timeout cannot kill it half-way). Returns the pid of the
    intermediate child, which exits as soon as it has forked; raises ``OSError`` when the
    first fork fails (nothing was started).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    # --- child ---
    code = 0
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        if os.fork():  # let the intermediate child exit so the work is reparented
            os._exit(0)
        work()
    except BaseException:
        code = 1
    finally:
        os._exit(code)
