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
cursor (``session/store.py``) records what was captured, not where it went.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from ovhooks.commands.common import settings_from
from ovhooks.commands.errors import CommandError, ExitCode, backend_failure, usage_error
from ovhooks.commands.export_plan import progress_key, server_uri, session_steps
from ovhooks.commands.export_run import Export, ProgressFile
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.local import LocalBackend
    from ovhooks.settings.config import Settings
    from ovhooks.transport.errors import BackendError

# The planning helpers are part of this command's public face (tests and callers use them).
__all__ = ["export", "open_local", "server_uri", "session_steps"]


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


def stopped_failure(
    exc: BackendError, done: dict[str, Any], *, target: str, url: str | None, settings: Settings
) -> CommandError:
    """A server error that stopped the export: what went over, which server, how to go on."""
    failure = backend_failure(exc, url=target)
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
    return failure


def _plan_and_run(job: Export, out: Output, *, dry_run: bool) -> None:
    """Plan, then send; a progress bar on stderr when a person watches a real run."""
    steps = job.plan()
    if out.as_json or dry_run or not steps:
        job.run()
        return
    from rich.progress import Progress

    with Progress(console=out.err, transient=False) as bar:
        task = bar.add_task(f"exporting to {job.url}", total=sum(s.units for s in steps))
        job.run(lambda n: bar.advance(task, n))


def _run_export(
    settings: Settings, target: str, url: str | None, out: Output, *, dry_run: bool
) -> dict[str, Any]:
    """One export under the per-server lock; returns its summary document."""
    from ovhooks.fsutil import FileLock
    from ovhooks.settings.layout import export_progress_path
    from ovhooks.transport.errors import BackendError

    local = open_local(settings)
    path = export_progress_path(settings.state_dir, progress_key(settings, target))
    lock = FileLock(path + ".lock", timeout_s=0)
    if not dry_run and not lock.acquire():
        raise CommandError(
            "another export to this server is running",
            fix="wait for it to finish",
            code=ExitCode.ERROR,
            slug="busy",
        )
    job: Export | None = None
    try:
        progress = ProgressFile(path, target, local.user, read_only=dry_run)
        job = Export(settings, target, local, progress, dry_run=dry_run)
        _plan_and_run(job, out, dry_run=dry_run)
    except BackendError as exc:
        done = job.summary()["totals"] if job is not None else {}
        raise stopped_failure(exc, done, target=target, url=url, settings=settings) from None
    finally:
        local.close()
        if job is not None:
            job.remote.close()
        if not dry_run:
            lock.release()
    return job.summary()


def _render(doc: dict[str, Any], target: str, dry_run: bool) -> Callable[[Any], None]:
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

    return render


@boundary("export")
def export(
    *,
    to: Annotated[str, typer.Option("--to", help="Where to: openviking (the only target).")],
    url: Annotated[
        str | None,
        typer.Option("--url", help="The server (default: OPENVIKING_URL or the settings' url)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be sent; send and change nothing.")
    ] = False,
    as_json: JsonFlag = False,
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
        raise usage_error(f"unknown export target {to!r}", "use --to openviking")
    settings = settings_from()
    from ovhooks.commands.errors import utf8_text

    target = utf8_text(url or settings.url, "--url").rstrip("/")
    out = Output("export", as_json=as_json)
    doc = _run_export(settings, target, url, out, dry_run=dry_run)
    out.emit(doc, _render(doc, target, dry_run))
    return int(ExitCode.INCOMPLETE) if doc["failed"] else 0
