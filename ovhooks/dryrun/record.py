"""Dry runs: the hook context, state store, outbox and worker that say what they would
write, and write nothing (interface §1: ``--dry-run`` reads, but changes no state file or
queue and sends no write).

Each is the real class with its writes replaced, chosen once where the run starts (at the
edge: ``hookrun``, and ``commands.common.job_runner`` for the commands), so the real classes
carry no dry-run branches and never import this module. What the run would have written goes
to the ``Plan``; what it would have stored stays in memory, so later steps of the same run
read it back as if it had been written.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

from ovhooks.events.context import HookContext
from ovhooks.outbox.box import DrainResult
from ovhooks.outbox.queue import Outbox, batches
from ovhooks.session.store import StateStore
from ovhooks.worker.run import SessionWorker, backends_for, run_each

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.dryrun.plan import Plan
    from ovhooks.hosts.base import Event
    from ovhooks.log import Log
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job, QueueEntry, State


class PlannedStateStore(StateStore):
    """Session documents read from disk; saves and deletes kept in memory and planned."""

    def __init__(self, state_dir: str, plan: Plan, *, log: Log | None = None) -> None:
        super().__init__(state_dir, log=log)
        self.plan = plan
        self._overlay: dict[str, State | None] = {}

    def lock(self, key: str) -> contextlib.AbstractContextManager[object]:
        return contextlib.nullcontext()  # nothing is written, so nothing to serialise

    def load(self, key: str) -> State | None:
        if key in self._overlay:
            doc = self._overlay[key]
            return json.loads(json.dumps(doc)) if doc is not None else None
        return super().load(key)

    def _quarantine(self, path: str, exc: Exception) -> None:
        if self.log:
            self.log.error("state_corrupt", path=path, error=str(exc))
        self.plan.note(f"move corrupt state {path} aside")

    def save(self, doc: State) -> None:
        key = str(doc["key"])
        old = self.load(key)
        self._overlay[key] = json.loads(json.dumps(doc))
        self.plan.note(f"update state {key}: {_diff(old, doc)}")

    def delete(self, key: str) -> None:
        self._overlay[key] = None
        self.plan.note(f"delete state {key}")

    def keys(self) -> list[str]:
        keys = set(super().keys())
        for key, doc in self._overlay.items():
            if doc is None:
                keys.discard(key)
            else:
                keys.add(key)
        return sorted(keys)


class PlannedOutbox(Outbox):
    """A session's queue whose new blobs stay in memory and whose drain plans the requests."""

    def __init__(self, store: StateStore, key: str, plan: Plan, **kwargs: Any) -> None:
        super().__init__(store, key, **kwargs)
        self.plan = plan
        self._blobs: dict[str, list[dict[str, Any]]] = {}

    def write_blob(self, session: str, messages: list[dict[str, Any]]) -> str:
        name = f"{time.time_ns():x}-{os.getpid()}-{os.urandom(4).hex()}.json"
        self._blobs[name] = messages
        self.plan.note(f"queue {len(messages)} message(s) for {session}")
        return name

    def drop_blob(self, name: str) -> None:
        self._blobs.pop(name, None)

    def read_blob(self, name: str) -> list[dict[str, Any]]:
        if name in self._blobs:
            return self._blobs[name]
        return super().read_blob(name)  # queued by an earlier, real run

    def tidy(self) -> None:
        return None  # removes files: not in a dry run

    def drain(
        self,
        backend: Backend,
        *,
        on_commit_not_found: Callable[[QueueEntry], None] | None = None,
    ) -> DrainResult:
        """Plan the request each queued entry would make; send nothing."""
        for entry in self.entries():
            self._plan_entry(entry)
        return DrainResult()

    def _plan_entry(self, entry: QueueEntry) -> None:
        sid = entry["session"]
        if entry["op"] != "append":
            keep = entry.get("keep_recent_count") or 0
            body = {"keep_recent_count": keep} if keep else {}
            self.plan.write_request("POST", f"/api/v1/sessions/{sid}/commit", body)
            return
        try:
            messages = self.read_blob(str(entry.get("blob")))
        except (OSError, ValueError):
            return
        for batch in batches(messages[int(entry.get("sent") or 0) :]):
            path = f"/api/v1/sessions/{sid}/messages/batch"
            self.plan.write_request("POST", path, {"messages": batch})


class PlannedSessionWorker(SessionWorker):
    """The worker's steps on a planned store and outbox: no lock, nothing recorded."""

    def __init__(self, *args: Any, plan: Plan, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plan = plan

    def run(self, job: Job) -> dict[str, Any]:
        return self._run_locked(job)

    def outbox(self, key: str) -> Outbox:
        return PlannedOutbox(
            self.store,
            key,
            self.plan,
            log=self.log,
            inflight_window_s=self.settings.inflight_window_s,
            clock=self.clock,
        )

    def _record_drain(self, key: str, result: DrainResult, summary: dict[str, Any]) -> None:
        return None  # a planned drain has no outcome to keep


def plan_jobs(
    settings: Settings,
    jobs: Sequence[Job],
    *,
    log: Log,
    plan: Plan,
    clock: Callable[[], float] = time.time,
) -> list[dict[str, Any]]:
    """What ``worker.run_jobs`` would write for ``jobs``, said in ``plan``; no sweep."""
    from ovhooks.dryrun.backend import DryRunBackend

    real = backends_for(settings)

    def backend_for(peer: str) -> Backend:
        return DryRunBackend(real(peer), plan)

    store = PlannedStateStore(settings.state_dir, plan, log=log)
    worker = PlannedSessionWorker(settings, backend_for, store, log=log, clock=clock, plan=plan)
    return run_each(worker, jobs, log)


class PlannedHookContext(HookContext):
    """A hook run's context in a dry run: its store, backend and hand-off only plan their
    writes, and it logs nothing (the state directory is left as it is, the log included)."""

    __slots__ = ("plan", "scratch")
    dry_run = True

    def __init__(self, settings: Settings, plan: Plan, **kwargs: Any) -> None:
        from ovhooks.log import Log

        log = Log(settings.state_dir, "silent", component=kwargs["host"])
        super().__init__(settings, log=log, **kwargs)
        self.plan = plan
        self.scratch: list[str] = []  # throw-away state copies, removed by ``discard``

    def discard(self) -> None:
        """Remove the throw-away copies of the state directory (they hold what recall keeps:
        injected memories, the journal's prompt heads), as the hook ends."""
        import shutil

        for path in self.scratch:
            shutil.rmtree(path, ignore_errors=True)
        self.scratch.clear()

    def store(self) -> StateStore:
        return PlannedStateStore(self.settings.state_dir, self.plan, log=self.log)

    def backend(self, event: Event, *, deadline: float | None = None) -> Backend:
        from ovhooks.dryrun.backend import DryRunBackend

        return DryRunBackend(super().backend(event, deadline=deadline), self.plan)

    def scratch_settings(self) -> Settings:
        """Settings whose state dir is a throw-away copy: recall keeps small files (injected
        memories, breaker, server capabilities) that a dry run must read as they are but
        must not change."""
        import shutil
        import tempfile

        scratch = tempfile.mkdtemp(prefix="ovhooks-dry-run-")
        self.scratch.append(scratch)
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

    def hand_off(self, jobs: Sequence[Job]) -> None:
        """Describe what the worker would write for ``jobs``."""
        if jobs:
            plan_jobs(self.settings, jobs, log=self.log, plan=self.plan, clock=self.clock)


def _diff(old: State | None, new: State) -> str:
    if old is None:
        return "created"
    changed = [k for k in sorted(new) if old.get(k) != new.get(k)]
    shown = []
    for k in changed[:8]:
        value = json.dumps(new.get(k), ensure_ascii=False)
        shown.append(f"{k}={value[:60]}")
    return ", ".join(shown) or "no change"
