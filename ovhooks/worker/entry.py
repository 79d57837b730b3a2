"""``ovhooks _worker JOBFILE``: run worker jobs in a separate process (no ``fork`` here)."""

from __future__ import annotations

import json
import os


def main(argv: list[str]) -> int:
    """Run the jobs listed in the JSON file ``argv[0]`` (deleted once read); 2 if unreadable."""
    from ovhooks.log import Log
    from ovhooks.settings.config import load_settings
    from ovhooks.worker.run import run_jobs

    if not argv:
        return 2
    path = argv[0]
    try:
        with open(path, encoding="utf-8") as fh:
            jobs = json.load(fh)
    except (OSError, ValueError):
        return 2
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    settings = load_settings(os.environ)
    run_jobs(
        settings,
        jobs if isinstance(jobs, list) else [],
        log=Log(settings.state_dir, settings.log_level, component="worker"),
    )
    return 0
