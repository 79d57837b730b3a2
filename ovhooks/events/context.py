"""What every event handler receives: settings, clock, log, dry-run plan, host."""

from __future__ import annotations

import os

from ovhooks.ids import ov_session_id, project_root
from ovhooks.log import Log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.config import Settings
    from ovhooks.hosts.base import Event
    from ovhooks.layout import Job
    from ovhooks.plan import Plan
    from ovhooks.project import ProjectIdentity
    from ovhooks.state import StateStore


class HookContext:
    """One hook run's inputs (settings, host, clock, environment, dry-run plan, log) and the
    services handlers reach through it: state store, backend, project identity, hand-off."""

    __slots__ = ("_identities", "environ", "host", "log", "now", "plan", "settings", "started")

    def __init__(
        self,
        settings: Settings,
        *,
        host: str,
        now: float,
        started: float,
        environ: Mapping[str, str],
        plan: Plan | None = None,
        log: Log | None = None,
    ) -> None:
        self.settings = settings
        self.host = host
        self.now = now  # wall clock, read once at the edge
        self.started = started  # time.monotonic() at process start, for deadlines
        self.environ = environ
        self.plan = plan
        # A dry run leaves the state directory untouched, the log included.
        level = "silent" if plan is not None else settings.log_level
        self.log = log or Log(settings.state_dir, level, component=host)
        self._identities: dict[str, ProjectIdentity] = {}

    @property
    def dry_run(self) -> bool:
        """Whether this run only says what it would write (``--dry-run``)."""
        return self.plan is not None

    def session_key(self, event: Event) -> str:
        return ov_session_id(self.host, event.session_id) if event.session_id else ""

    def project_dir(self, event: Event) -> str:
        return project_root(event.cwd or self.environ.get("PWD", ""))

    def identity(self, event: Event) -> ProjectIdentity:
        """The project identity of the event's folder (see :mod:`ovhooks.project`), once."""
        return self.identity_of(event.cwd or self.environ.get("PWD", ""))

    def identity_of(self, cwd: str) -> ProjectIdentity:
        found = self._identities.get(cwd)
        if found is None:
            from ovhooks.project import resolve

            found = resolve(cwd, actor_peer=self.settings.actor_peer)
            for warning in found.warnings:
                self.log.error("project_config", detail=warning)
            self._identities[cwd] = found
        return found

    def peer(self, event: Event) -> str:
        return self.identity(event).peer

    def bypassed(self, event: Event) -> bool:
        if not self.settings.bypass:
            return False
        from ovhooks.capture.bypass import is_bypassed

        return is_bypassed(self.project_dir(event), self.settings.bypass)

    def store(self) -> StateStore:
        """The session documents; in a dry run, a store that only says what it would write."""
        from ovhooks.state import open_store

        return open_store(self.settings.state_dir, plan=self.plan, log=self.log)

    def backend(self, event: Event, *, deadline: float | None = None) -> Backend:
        from ovhooks.backend.factory import DryRunBackend, make_backend

        backend = make_backend(self.settings, peer=self.peer(event), deadline=deadline)
        if self.plan is not None:
            return DryRunBackend(backend, self.plan)
        return backend

    def scratch_settings(self) -> Settings:
        """Settings whose state dir is a throw-away copy, for dry runs of code that writes.

        Recall keeps small files (injected memories, breaker, server capabilities) that a dry
        run must read as they are but must not change: it gets a copy of them.
        """
        if self.plan is None:
            return self.settings
        import shutil
        import tempfile

        scratch = tempfile.mkdtemp(prefix="ovhooks-dry-run-")
        source = self.settings.state_dir
        try:
            names = os.listdir(source)
        except OSError:
            names = []
        for name in names:
            path = os.path.join(source, name)
            try:
                if name == "recall" and os.path.isdir(path):
                    shutil.copytree(path, os.path.join(scratch, name))
                elif os.path.isfile(path):
                    shutil.copy2(path, os.path.join(scratch, name))
            except OSError:
                continue
        return self.settings.replace(state_dir=scratch)

    def job(self, event: Event, **work: Any) -> Job:
        """A worker job for this event's session."""
        from ovhooks.layout import new_job

        fields: dict[str, Any] = {
            "key": self.session_key(event),
            "host": self.host,
            "host_session_id": event.session_id,
            "transcript_path": event.transcript_path,
            "cwd": event.cwd,
            "peer": self.peer(event),
        }
        fields.update(work)
        return new_job(**fields)

    def hand_off(self, jobs: Sequence[Job]) -> None:
        """Give jobs to the worker, or describe them in a dry run."""
        if not jobs:
            return
        if self.plan is not None:
            from ovhooks.worker import run_jobs

            run_jobs(self.settings, jobs, log=self.log, plan=self.plan, clock=self.clock)
            return
        from ovhooks.detach import hand_off

        hand_off(self.settings, jobs, log=self.log, clock=self.clock)

    def clock(self) -> float:
        """The event's time: the worker stamps what it records for this event with it."""
        return self.now
