"""What every event handler receives: settings, clock, log, host, and the services it uses.

A dry run gets ``dryrun.PlannedHookContext`` instead, whose store, backend and hand-off only
say what they would write.
"""

from __future__ import annotations

from ovhooks.ids import prefixed_session_id, project_root
from ovhooks.log import Log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.hosts.base import Event
    from ovhooks.hosts.spec import HostSpec
    from ovhooks.project import ProjectIdentity
    from ovhooks.session.store import StateStore
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job


class HookContext:
    """One hook run's inputs (settings, host, clock, environment, log) and the services
    handlers reach through it: state store, backend, project identity, hand-off."""

    __slots__ = ("_identities", "environ", "host", "log", "now", "settings", "started")
    dry_run = False  # whether this run only says what it would write (``--dry-run``)

    def __init__(
        self,
        settings: Settings,
        *,
        host: str,
        now: float,
        started: float,
        environ: Mapping[str, str],
        log: Log | None = None,
    ) -> None:
        self.settings = settings
        self.host = host
        self.now = now  # wall clock, read once at the edge
        self.started = started  # time.monotonic() at process start, for deadlines
        self.environ = environ
        self.log = log or Log(settings.state_dir, settings.log_level, component=host)
        self._identities: dict[str, ProjectIdentity] = {}

    def session_key(self, event: Event) -> str:
        if not event.session_id:
            return ""
        return prefixed_session_id(self.spec.session_prefix, event.session_id)

    @property
    def spec(self) -> HostSpec:
        """What differs for this event's host (``hosts/registry.py``)."""
        from ovhooks.hosts.registry import spec

        return spec(self.host)

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
        """The session documents."""
        from ovhooks.session.store import StateStore

        return StateStore(self.settings.state_dir, log=self.log)

    def backend(self, event: Event, *, deadline: float | None = None) -> Backend:
        """The backend for the event's project peer, bounded by ``deadline``."""
        from ovhooks.backend.factory import make_backend

        return make_backend(self.settings, peer=self.peer(event), deadline=deadline)

    def scratch_settings(self) -> Settings:
        """The settings for code that keeps its own small files (recall); a dry run gives it
        a throw-away copy of the state directory."""
        return self.settings

    def discard(self) -> None:
        """Remove what ``scratch_settings`` made, as the hook ends (here: nothing)."""

    def job(self, event: Event, **work: Any) -> Job:
        """A worker job for this event's session."""
        from ovhooks.settings.layout import new_job

        fields: dict[str, Any] = {
            "key": self.session_key(event),
            "host": self.host,
            "host_session_id": event.session_id,
            "transcript_path": event.transcript_path,
            "cwd": event.cwd,
            "peer": self.peer(event),
        }
        fields.update(work)
        wait = self.settings.reply_wait_s
        if wait and fields.get("capture") and self.spec.stop_before_transcript:
            # A host that writes its file in batches (Copilot CLI) may not have created it
            # when its hooks fire: the worker waits for it (seen: a one-prompt session's Stop
            # and SessionEnd both found no file, and the session was never captured).
            fields.setdefault("wait_for_transcript_s", wait)
        return new_job(**fields)

    def hand_off(self, jobs: Sequence[Job]) -> None:
        """Give jobs to the worker (detached, or inline with ``OVHOOKS_DETACH=0``)."""
        if not jobs:
            return
        from ovhooks.worker.detach import hand_off

        hand_off(self.settings, jobs, log=self.log, clock=self.clock)

    def clock(self) -> float:
        """The event's time: the worker stamps what it records for this event with it."""
        return self.now
