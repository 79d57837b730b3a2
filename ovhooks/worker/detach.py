"""Handing jobs to a detached worker: the only part of the worker a hook's parent imports.

The worker itself (state, outbox, capture, backend) is imported by the child after the fork,
so a Stop hook pays for none of it before answering the host.
"""

from __future__ import annotations

import os
import sys
import time

from ovhooks.spawn import run_detached

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ovhooks.log import Log
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job


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
    clock = _advancing(clock)
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


def _advancing(clock: Callable[[], float]) -> Callable[[], float]:
    """``clock`` read once (a hook's clock is its event's time), then moving with the time
    that passes: the worker may wait out a batch in flight for many seconds and stamps each
    batch it sends with the time it is sent; a stamp from the event's time made the next
    worker think the server's processing window was over and send the batch again."""
    base, started = clock(), time.monotonic()
    return lambda: base + (time.monotonic() - started)
