"""``ovhooks export --to openviking``: move the embedded local store to an OpenViking server.

What goes over, for the user the settings name:

- every session, into the same session id, with the messages in their local order: each
  archive's messages are appended and then committed (so the server holds the same archives),
  then the live messages are appended without a commit;
- every memory file, written to the same ``viking://`` URI (the local store already uses the
  server's layout), and the profile to ``memories/profile.md``.

Resumable and idempotent: progress lives in ``<state_dir>/export/<key>.json`` (``key`` hashes
the server URL and the identity), updated as requests complete: per session the last
exported ``seq``, the archives committed and the messages sent; per memory the hash of what
was written (a memory deleted locally after an export stays on the server). A second export
sends nothing; an interrupted one continues where it stopped. Before each append the batch
is marked in flight; if the run dies with it in flight, the next run asks the server how many
messages the session holds and so knows whether the batch landed, which keeps each message
sent once even when an answer was lost (provided the export is what filled that session).

Live capture afterwards continues on the server without duplicates because the hooks' state
cursor (``state.py``) records what was captured, not where it went.
"""

from __future__ import annotations

import hashlib
import os
import time

from ovhooks.commands.errors import CommandError, ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    import typer

    from ovhooks.backend.http import HttpClient
    from ovhooks.backend.local import LocalBackend
    from ovhooks.backend.openviking import OpenVikingBackend
    from ovhooks.config import Settings

PROGRESS_VERSION = 1
BATCH = 100  # the server's batch limit (openviking-api §A.3)


# --- pure planning ------------------------------------------------------------------------


class Step:
    """One request of the export: ``append`` a batch, ``commit`` an archive, ``write`` a file."""

    __slots__ = ("content", "digest", "keep_recent", "kind", "number", "peer", "seqs", "target")

    def __init__(
        self,
        kind: str,
        target: str,
        peer: str,
        *,
        seqs: Sequence[int] = (),
        number: int = 0,
        keep_recent: int = 0,
        content: str = "",
        digest: str = "",
    ) -> None:
        self.kind = kind
        self.target = target  # session id, or the memory's local URI
        self.peer = peer
        self.seqs = list(seqs)
        self.number = number
        self.keep_recent = keep_recent
        self.content = content
        self.digest = digest

    @property
    def units(self) -> int:
        """How far this step moves the progress bar: one per message, request otherwise."""
        return len(self.seqs) if self.kind == "append" else 1


def _batches(session_id: str, peer: str, seqs: list[int]) -> list[Step]:
    return [
        Step("append", session_id, peer, seqs=seqs[i : i + BATCH])
        for i in range(0, len(seqs), BATCH)
    ]


def session_steps(
    session_id: str,
    peer: str,
    seqs: Sequence[tuple[int, int | None]],
    *,
    done_seq: int,
    done_archives: int,
) -> list[Step]:
    """What is left to send of one session, given ``(seq, archive or None)`` of its messages.

    Archives go first, in number order: their unsent messages, then a commit. A message sent
    live by an earlier export and archived locally since is not sent again; the commit then
    keeps on the server, live, the already-sent messages that follow the archive
    (``keep_recent``), so each server archive holds exactly the local archive's messages.
    """
    archives: dict[int, list[int]] = {}
    live: list[int] = []
    for seq, archive in seqs:
        if archive is None:
            live.append(seq)
        else:
            archives.setdefault(int(archive), []).append(seq)
    steps: list[Step] = []
    for number in sorted(archives):
        if number <= done_archives:
            continue
        members = archives[number]
        steps.extend(_batches(session_id, peer, [s for s in members if s > done_seq]))
        last = members[-1]
        keep = sum(1 for s, _ in seqs if last < s <= done_seq)
        steps.append(Step("commit", session_id, peer, number=number, keep_recent=keep))
    steps.extend(_batches(session_id, peer, [s for s in live if s > done_seq]))
    return steps


def content_digest(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def memory_steps(memories: Iterable[tuple[str, str, str]], done: dict[str, str]) -> list[Step]:
    """A write for each memory whose content differs from what the last export wrote."""
    steps = []
    for uri, peer, content in memories:
        digest = content_digest(content)
        if done.get(uri) != digest:
            steps.append(Step("write", uri, peer, content=content, digest=digest))
    return steps


def server_uri(uri: str, local_user: str, server_user: str) -> str:
    """The local URI under the server user's root (the local store may say ``default``)."""
    prefix = f"viking://user/{local_user}/"
    if local_user != server_user and uri.startswith(prefix):
        return f"viking://user/{server_user}/" + uri[len(prefix) :]
    return uri


def progress_key(settings: Settings, url: str) -> str:
    """One progress file per server and identity: another user's export starts afresh."""
    key_hash = hashlib.sha256(settings.api_key.encode()).hexdigest() if settings.api_key else ""
    who = "\n".join((url.rstrip("/"), settings.account, settings.user, key_hash))
    return hashlib.sha256(who.encode("utf-8")).hexdigest()[:24]


def new_progress(url: str, user: str) -> dict[str, Any]:
    return {
        "v": PROGRESS_VERSION,
        "url": url,
        "user": user,
        "server_user": "",
        "sessions": {},
        "memories": {},
        "updated_at": None,
    }


def session_progress(progress: dict[str, Any], session_id: str) -> dict[str, Any]:
    sessions: dict[str, dict[str, Any]] = progress["sessions"]
    return sessions.setdefault(session_id, {"seq": -1, "archives": 0, "sent": 0})


# --- the run ------------------------------------------------------------------------------


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
    from ovhooks.backend.errors import BackendError

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
            from ovhooks.backend.http import transport_for
            from ovhooks.backend.openviking import OpenVikingBackend

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
    from ovhooks.backend.errors import BackendError

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

    The same rule as the outbox (``outbox.py``): it is sent again only when it certainly
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

        uri = clean_outbound(server_uri(step.target, self.local.user, user), self.settings)
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


def open_local(settings: Settings) -> LocalBackend:
    """The local store to read; an error (not a new, empty store) when there is none."""
    from ovhooks.backend.local import DB_NAME, PROFILE_NAME, LocalBackend

    data_dir = settings.data_dir
    if not any(os.path.exists(os.path.join(data_dir, n)) for n in (DB_NAME, PROFILE_NAME)):
        raise CommandError(
            f"no local memory store in {data_dir}",
            fix="set OVHOOKS_DATA_DIR to where the local store lives (`ovhooks status` shows it)",
            code=ExitCode.NOT_FOUND,
            slug="not_found",
        )
    return LocalBackend(data_dir, user=settings.user or "default")


def register(app: typer.Typer) -> None:
    import typer

    from ovhooks.commands.common import settings_from
    from ovhooks.commands.output import JsonOption, Output, boundary

    @app.command("export", rich_help_panel="Lifecycle")
    @boundary("export")
    def export(
        *,
        to: str = typer.Option(..., "--to", help="Where to: openviking (the only target)."),
        url: str = typer.Option(
            None, "--url", help="The server (default: OPENVIKING_URL or the settings' url)."
        ),
        dry_run: bool = typer.Option(
            False, "--dry-run", help="Say what would be sent; send and change nothing."
        ),
        as_json: bool = JsonOption,
    ) -> int:
        """Push the local store's sessions and memories to an OpenViking server.

        Same session ids, same archives (each archive committed), same memory URIs. Resumable:
        run it again after an interruption and it continues; once done it sends nothing.
        Afterwards set OPENVIKING_URL (or OVHOOKS_BACKEND=openviking) and capture continues
        on the server without sending a turn twice.

        Exit code 7 when the server refused some items for good (listed under failed); the
        rest went over.

        JSON: {to, url, dry_run, progress_file, totals {sessions, sessions_sent, messages,
        commits, memories, requests, failed, up_to_date}, sessions: [{session_id, messages,
        commits}], memories: the URIs written, failed: [{kind, target, error}]}.
        """
        if to != "openviking":
            raise CommandError(
                f"unknown export target {to!r}",
                fix="use --to openviking",
                code=ExitCode.USAGE,
                slug="usage",
            )
        from ovhooks.backend.errors import BackendError
        from ovhooks.commands.errors import backend_failure
        from ovhooks.fsutil import FileLock

        settings = settings_from()
        target = (url or settings.url).rstrip("/")
        local = open_local(settings)
        from ovhooks.layout import export_progress_path

        path = export_progress_path(settings.state_dir, progress_key(settings, target))
        lock = FileLock(path + ".lock", timeout_s=0)
        if not dry_run and not lock.acquire():
            raise CommandError(
                "another export to this server is running",
                fix="wait for it to finish",
                code=ExitCode.ERROR,
                slug="busy",
            )
        out = Output("export", as_json=as_json)
        job: Export | None = None
        try:
            progress = ProgressFile(path, target, local.user, read_only=dry_run)
            job = Export(settings, target, local, progress, dry_run=dry_run)
            steps = job.plan()
            if as_json or dry_run or not steps:
                job.run()
            else:
                from rich.progress import Progress

                with Progress(console=out.err, transient=False) as bar:
                    task = bar.add_task(f"exporting to {target}", total=sum(s.units for s in steps))
                    job.run(lambda n: bar.advance(task, n))
        except BackendError as exc:
            failure = backend_failure(exc, url=target)
            done = job.summary()["totals"] if job is not None else {}
            failure.message += (
                f" (export stopped after {done.get('messages', 0)} message(s),"
                f" {done.get('commits', 0)} commit(s), {done.get('memories', 0)} memory file(s))"
            )
            if url:
                where = f"--url {target}"
            elif settings.sources.get("url", "default") == "default":
                where = f"no server configured, so the default {target}"
            else:
                where = f"{target} from {settings.sources['url']}"
            failure.fix = (
                f"export used {where}: start the OpenViking server there, or name the right "
                "one with --url URL (or set OPENVIKING_URL); then run the same command again: "
                "it continues where it stopped"
            )
            raise failure from None
        finally:
            local.close()
            if job is not None:
                job.remote.close()
            if not dry_run:
                lock.release()
        doc = job.summary()
        totals = doc["totals"]

        def render(console: Any) -> None:
            if totals["up_to_date"]:
                console.print(
                    f"nothing to export: {target} already has the local store's "
                    f"{totals['sessions']} session(s) and memories",
                    markup=False,
                )
                return
            verb = "would send" if dry_run else "sent"
            console.print(
                f"{verb} {totals['messages']} message(s) in {totals['sessions_sent']} "
                f"session(s), {totals['commits']} commit(s), {totals['memories']} memory "
                f"file(s) to {target}",
                markup=False,
            )
            for item in doc["failed"]:
                console.print(
                    f"  refused: {item['kind']} {item['target']}: {item['error']}", markup=False
                )
            if not dry_run and not doc["failed"]:
                console.print(
                    "to capture there from now on: export OPENVIKING_URL="
                    f"{target} (or set OVHOOKS_BACKEND=openviking)",
                    markup=False,
                )

        out.emit(doc, render)
        return int(ExitCode.INCOMPLETE) if doc["failed"] else 0
