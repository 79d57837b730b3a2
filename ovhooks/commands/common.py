"""What most commands need: the settings in force, a backend, the project peer, the state."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.dryrun.plan import Plan
    from ovhooks.log import Log
    from ovhooks.project import ProjectIdentity
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job


def settings_from(environ: Mapping[str, str] | None = None) -> Settings:
    from ovhooks.settings.config import load_settings

    return load_settings(os.environ if environ is None else environ)


def current_peer(settings: Settings, cwd: str | None = None) -> str:
    """The peer hooks use for this folder (see :mod:`ovhooks.project`)."""
    return current_identity(settings, cwd).peer


def current_identity(settings: Settings, cwd: str | None = None) -> ProjectIdentity:
    from ovhooks.project import resolve

    return resolve(cwd if cwd is not None else os.getcwd(), actor_peer=settings.actor_peer)


def command_backend(
    settings: Settings, *, peer: str = "", timeout_s: float | None = None
) -> Backend:
    """A backend for a human command: the factory's, on the hooks' own transport."""
    from ovhooks.backend.factory import make_backend

    return make_backend(settings, peer=peer, request_timeout_s=timeout_s)


def job_runner(
    settings: Settings, log: Log, plan: Plan | None
) -> Callable[[Sequence[Job]], list[dict[str, Any]]]:
    """How a command runs worker jobs now: the real worker, or with a ``plan`` (``--dry-run``)
    the planning one, which only says what it would write. The choice is made here, at the
    edge, so the worker never imports the dry run."""
    if plan is not None:
        from ovhooks.dryrun.record import plan_jobs

        return lambda jobs: plan_jobs(settings, jobs, log=log, plan=plan)
    from ovhooks.worker.run import run_jobs

    return lambda jobs: run_jobs(settings, jobs, log=log)


def outbox_backlog(state_dir: str) -> dict[str, int]:
    """Session key -> writes still queued for it (``layout.queued_counts``)."""
    from ovhooks.session.store import StateStore
    from ovhooks.settings.layout import queued_counts

    return queued_counts(state_dir, StateStore(state_dir).all())


def dead_letters(state_dir: str) -> int:
    """Records the server refused for good, set aside under ``outbox/dead/`` for inspection."""
    from ovhooks.settings.layout import dead_root

    total = 0
    for _dir, _subdirs, files in os.walk(dead_root(state_dir)):
        total += sum(1 for n in files if n.endswith(".json"))
    return total
