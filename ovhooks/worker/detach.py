"""Handing jobs to a detached worker: the only part of the worker a hook's parent imports.

The worker itself (state, outbox, capture, backend) is imported by the child after the fork,
so a Stop hook pays for none of it before answering the host.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ovhooks.log import Log
    from ovhooks.session.layout import Job
    from ovhooks.settings.config import Settings


def _run(settings: Settings, jobs: Sequence[Job], log: Log, clock: Callable[[], float]) -> None:
    from ovhooks.worker.run import run_jobs

    run_jobs(settings, jobs, log=log, clock=clock)


def hand_off(
    settings: Settings,
    jobs: Sequence[Job],
    *,
    log: Log,
    clock: Callable[[], float] = time.time,
) -> None:
    """Run ``jobs`` in a detached worker (``OVHOOKS_DETACH=1``) or right here (``0``).

    The detached child is a fork of the hook process (``run_detached``): it starts instantly
    with everything already imported.
    """
    if not jobs:
        return
    if not settings.detach:
        _run(settings, jobs, log, clock)
        return
    if not hasattr(os, "fork"):  # pragma: no cover (Windows)
        _spawn_process(settings, jobs, log)
        return
    try:
        run_detached(lambda: _run(settings, jobs, log, clock))
    except OSError as exc:
        log.error("fork_failed", error=str(exc))
        _run(settings, jobs, log, clock)


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


def _spawn_process(settings: Settings, jobs: Sequence[Job], log: Log) -> None:  # pragma: no cover
    import json
    import subprocess
    import tempfile

    fd, path = tempfile.mkstemp(prefix="ovhooks-job-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(list(jobs), fh)
    subprocess.Popen(
        [sys.executable, "-m", "ovhooks", "_worker", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        creationflags=getattr(subprocess, "DETACHED_PROCESS", 0),
    )
    log.info("worker_spawned", path=path)
