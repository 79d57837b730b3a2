"""Export run: send the planned steps in order, recording each in the progress file.

Also the server connection it sends on; ``export`` describes the rules it keeps.
"""

from __future__ import annotations

import time

from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.commands.export_plan import (
    PROGRESS_VERSION,
    Step,
    clean_uri,
    memory_steps,
    new_progress,
    server_uri,
    session_progress,
    session_steps,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.local import LocalBackend
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.settings.config import Settings
    from ovhooks.transport.http import HttpClient


class ProgressFile:
    """The progress document on disk, saved atomically after every step that needs it."""

    # Saves that only spare repeating idempotent writes (memory files) wait this long.
    THROTTLE_S = 0.5

    def __init__(self, path: str, url: str, user: str, *, read_only: bool) -> None:
        from ovhooks.fsutil import read_json

        self.path = path
        self.read_only = read_only
        self._saved_at = 0.0
        self._dirty = False
        try:
            doc: Any = read_json(path)
        except FileNotFoundError:
            doc = new_progress(url, user)
        except (OSError, ValueError) as exc:
            raise _bad_progress(path, str(exc)) from None
        # Starting afresh over a file that is not understood would send everything twice.
        if not (
            isinstance(doc, dict)
            and doc.get("v") == PROGRESS_VERSION
            and isinstance(doc.get("sessions"), dict)
            and isinstance(doc.get("memories"), dict)
        ):
            raise _bad_progress(path, "not an export progress document of this version")
        self.doc: dict[str, Any] = doc

    def save(self, *, throttle: bool = False) -> None:
        if self.read_only:
            return
        now = time.monotonic()
        if throttle and now - self._saved_at < self.THROTTLE_S:
            self._dirty = True
            return
        from ovhooks.fsutil import write_json_atomic

        self.doc["updated_at"] = time.time()
        write_json_atomic(self.path, self.doc)
        self._saved_at = now
        self._dirty = False

    def flush(self) -> None:
        if self._dirty:
            self.save()


def _bad_progress(path: str, why: str) -> CommandError:
    return CommandError(
        f"cannot use the export progress file {path}: {why}",
        fix="move it aside to export everything again (the server keeps what it has; "
        "sessions already there would receive their messages twice)",
        code=ExitCode.ERROR,
        slug="bad_progress",
    )


def refused_for_good(exc: Exception) -> bool:
    """The server rejected this one item (a 4xx other than auth): retrying cannot help, and
    stopping would leave every later item stuck behind it."""
    from ovhooks.transport.errors import BackendError

    return (
        isinstance(exc, BackendError)
        and exc.kind == "http"
        and 400 <= exc.status < 500
        and exc.status not in (401, 403)
        and not exc.retryable
    )


class Remote:
    """OpenViking backends on one kept-alive connection, one per project peer (the hooks send
    each session's peer in ``X-OpenViking-Actor-Peer``; so does the export)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._transport: HttpClient | None = None
        self._backends: dict[str, OpenVikingBackend] = {}

    def backend(self, peer: str) -> OpenVikingBackend:
        if peer not in self._backends:
            from ovhooks.backend.openviking import OpenVikingBackend
            from ovhooks.transport.http import transport_for

            if self._transport is None:
                self._transport = transport_for(self.settings)
            self._backends[peer] = OpenVikingBackend(self.settings, peer, transport=self._transport)
        return self._backends[peer]

    @property
    def requests(self) -> int:
        return sum(b.requests_made for b in self._backends.values())

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def _server_total(backend: OpenVikingBackend, session_id: str) -> int | None:
    """How many messages the server's session ever received (None when it cannot say)."""
    from ovhooks.transport.errors import BackendError

    try:
        info = backend.session_info(session_id)
    except BackendError as exc:
        if exc.not_found:
            return 0
        raise
    total = info.get("total_message_count")
    return int(total) if isinstance(total, int) else None


def settle_inflight(
    remote: Remote,
    session_id: str,
    peer: str,
    state: dict[str, Any],
    *,
    window_s: float,
    now: float,
) -> None:
    """A batch the last run sent without hearing back: done if the server has it.

    The same rule as the outbox (``outbox/queue.py``): it is sent again only when it certainly
    failed, i.e. the server answered with an error, or its processing window has passed
    without the batch showing up. Until then the export stops rather than risk sending it
    twice while the original may still land.
    """
    inflight = state.get("inflight")
    if not isinstance(inflight, dict):
        return
    total = _server_total(remote.backend(peer), session_id)
    count = int(inflight.get("count") or 0)
    if total is not None and total == int(state["sent"]) + count:
        state["seq"] = int(inflight["last_seq"])
        state["sent"] = int(state["sent"]) + count
        state.pop("inflight", None)
        return
    waited = now - float(inflight.get("at") or 0)
    if total is None or (not inflight.get("answered") and waited < window_s):
        raise CommandError(
            f"a batch sent to session {session_id} {waited:.0f} s ago may still be applied "
            "by the server; it is not sent again before that is known",
            fix=f"run the same command again in {max(1, round(window_s - waited))} s",
            code=ExitCode.INCOMPLETE,
            slug="inflight",
        )
    state.pop("inflight", None)


class Export:
    """Plan and (unless a dry run) perform one export."""

    def __init__(
        self,
        settings: Settings,
        url: str,
        local: LocalBackend,
        progress: ProgressFile,
        *,
        dry_run: bool,
    ) -> None:
        self.settings = settings.replace(url=url.rstrip("/"))
        self.url = url.rstrip("/")
        self.local = local
        self.progress = progress
        self.dry_run = dry_run
        self.remote = Remote(self.settings)
        self.sessions_total = 0
        self.steps: list[Step] = []
        self.inflight: list[tuple[str, str]] = []
        self.sent: dict[str, dict[str, int]] = {}
        self.written: list[str] = []
        self.failed: list[dict[str, str]] = []

    def plan(self) -> list[Step]:
        doc = self.progress.doc
        sessions = self.local.export_sessions()
        self.sessions_total = len(sessions)
        steps: list[Step] = []
        for session in sessions:
            sid = str(session["session_id"])
            state = doc["sessions"].get(sid) or {"seq": -1, "archives": 0, "sent": 0}
            if state.get("inflight"):
                self.inflight.append((sid, str(session["peer"])))
            steps.extend(
                session_steps(
                    sid,
                    str(session["peer"]),
                    session["seqs"],
                    done_seq=int(state["seq"]),
                    done_archives=int(state["archives"]),
                )
            )
        steps.extend(memory_steps(self.local.export_memories(), doc["memories"]))
        self.steps = steps
        return steps

    def server_user(self) -> str:
        """The user whose root the memory files go under (asked of the server at most once)."""
        doc = self.progress.doc
        if self.settings.user:
            return self.settings.user
        if doc.get("server_user"):
            return str(doc["server_user"])
        if self.dry_run:
            return self.local.user
        doc["server_user"] = self.remote.backend("").whoami()
        return str(doc["server_user"])

    def _count(self, session_id: str, key: str, n: int) -> None:
        row = self.sent.setdefault(session_id, {"messages": 0, "commits": 0})
        row[key] += n

    def run(self, advance: Callable[[int], None] | None = None) -> None:
        """Perform the planned steps in order, saving progress as they complete.

        A server error stops the run (the next one continues from here), except an item the
        server refuses for good: it is listed in ``failed`` and the run goes on; the rest of
        that session waits, since its messages must arrive in order.
        """
        if self.dry_run:
            for step in self.steps:
                self._record_planned(step)
            return
        doc = self.progress.doc
        # Settle unanswered batches first: they decide which messages are still to send.
        if self.inflight:
            for sid, peer in self.inflight:
                settle_inflight(
                    self.remote,
                    sid,
                    peer,
                    session_progress(doc, sid),
                    window_s=self.settings.inflight_window_s,
                    now=time.time(),
                )
            self.progress.save()
            self.inflight = []
            self.plan()
        user = self.server_user() if any(s.kind == "write" for s in self.steps) else ""
        held: set[str] = set()
        try:
            for step in self.steps:
                if step.kind == "write" or step.target not in held:
                    try:
                        self._perform(step, user)
                    except Exception as exc:
                        if not refused_for_good(exc):
                            raise
                        self.failed.append(
                            {"kind": step.kind, "target": step.target, "error": str(exc)}
                        )
                        if step.kind != "write":
                            held.add(step.target)
                if advance is not None:
                    advance(step.units)
        finally:
            self.progress.flush()

    def _perform(self, step: Step, user: str) -> None:
        if step.kind == "append":
            self._append(step)
        elif step.kind == "commit":
            self._commit(step)
        else:
            self._write(step, user)

    def _record_planned(self, step: Step) -> None:
        if step.kind == "append":
            self._count(step.target, "messages", len(step.seqs))
        elif step.kind == "commit":
            self._count(step.target, "commits", 1)
        else:
            self.written.append(server_uri(step.target, self.local.user, self.server_user()))

    def _append(self, step: Step) -> None:
        messages = self.local.export_messages(step.target, step.seqs[0], step.seqs[-1])
        if len(messages) != len(step.seqs):
            raise CommandError(
                f"session {step.target} changed while exporting it",
                fix="run the export again",
                code=ExitCode.ERROR,
                slug="store_changed",
            )
        from ovhooks.capture.scrub import clean_json

        # The local store may predate today's rules (or hold remembered text): what leaves
        # for the server passes the scrub again (idempotent on what was already scrubbed).
        messages = [clean_json(m, self.settings) for m in messages]  # type: ignore[misc]
        state = session_progress(self.progress.doc, step.target)
        state["inflight"] = {"count": len(messages), "last_seq": step.seqs[-1], "at": time.time()}
        self.progress.save()
        try:
            self.remote.backend(step.peer).append_messages(step.target, messages)
        except Exception as exc:
            kind = getattr(exc, "kind", "")
            if refused_for_good(exc) or kind == "unreachable":  # certainly not taken
                state.pop("inflight", None)
                self.progress.save()
            elif kind == "http":  # answered: the server is done with it, check then resend
                state["inflight"]["answered"] = True
                self.progress.save()
            raise
        state.pop("inflight", None)
        state["seq"] = step.seqs[-1]
        state["sent"] = int(state["sent"]) + len(messages)
        self.progress.save()
        self._count(step.target, "messages", len(messages))

    def _commit(self, step: Step) -> None:
        # A commit repeated after a lost answer finds nothing live and is skipped: harmless.
        self.remote.backend(step.peer).commit(step.target, keep_recent_count=step.keep_recent)
        session_progress(self.progress.doc, step.target)["archives"] = step.number
        self.progress.save()
        self._count(step.target, "commits", 1)

    def _write(self, step: Step, user: str) -> None:
        from ovhooks.capture.scrub import clean_outbound

        uri = clean_uri(server_uri(step.target, self.local.user, user), self.settings)
        content = clean_outbound(step.content, self.settings)
        self.remote.backend(step.peer).write(uri, content, mode="replace")
        self.progress.doc["memories"][step.target] = step.digest
        # Rewriting a file is harmless, so a crash may cost a few repeats, not a save each.
        self.progress.save(throttle=True)
        self.written.append(uri)

    def summary(self) -> dict[str, Any]:
        sessions = [
            {"session_id": sid, "messages": row["messages"], "commits": row["commits"]}
            for sid, row in self.sent.items()
        ]
        messages = sum(row["messages"] for row in self.sent.values())
        commits = sum(row["commits"] for row in self.sent.values())
        return {
            "to": "openviking",
            "url": self.url,
            "dry_run": self.dry_run,
            "progress_file": self.progress.path,
            "totals": {
                "sessions": self.sessions_total,
                "sessions_sent": len(sessions),
                "messages": messages,
                "commits": commits,
                "memories": len(self.written),
                "requests": self.remote.requests,
                "failed": len(self.failed),
                "up_to_date": not self.steps,
            },
            "sessions": sessions,
            "memories": list(self.written),
            "failed": list(self.failed),
        }
