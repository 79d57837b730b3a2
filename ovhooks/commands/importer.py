"""``ovhooks import codex|claude [PATH...]``: backfill past transcripts into memory.

Each transcript becomes the session live capture would have used (``cx-<id>``/``cc-<id>``,
the same peer), and goes through the worker's own capture path, so the store receives exactly
what the Stop hook would have sent. The session's state cursor makes it resumable and lets
live capture continue later without sending a turn twice.
"""

from __future__ import annotations

import os
import time
from typing import Annotated

import typer

from ovhooks.commands.common import job_runner, outbox_backlog, settings_from
from ovhooks.commands.errors import ExitCode, usage_error
from ovhooks.commands.import_scan import Transcript, default_root, select
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job, State


def import_job(settings: Settings, item: Transcript, *, commit: bool) -> Job:
    """The job a Stop hook would hand the worker for this transcript."""
    from ovhooks.hosts.registry import spec as host_spec
    from ovhooks.ids import prefixed_session_id
    from ovhooks.project import resolve

    peer = settings.actor_peer
    if not peer and item.cwd:
        peer = resolve(item.cwd).peer
    from ovhooks.settings.layout import new_job

    work: dict[str, Any] = {"capture": True}
    if commit:
        work["commit"] = "import"
    return new_job(
        prefixed_session_id(host_spec(item.host).session_prefix, item.session_id),
        host=item.host,
        host_session_id=item.session_id,
        transcript_path=item.path,
        cwd=item.cwd,
        peer=peer,
        **work,
    )


def up_to_date(state: State | None, item: Transcript, *, commit: bool) -> bool:
    """True when the session's cursor sits at the end of this transcript (and, if a commit
    is wanted, nothing is left uncommitted)."""
    if not state or state.get("transcript_path") != item.path:
        return False
    cursor = state.get("cursor") or {}
    if int(cursor.get("offset") or 0) < item.size:
        return False
    return not (commit and int(state.get("uncommitted") or 0))


def _new_row(item: Transcript, key: str) -> dict[str, Any]:
    return {
        "path": item.path,
        "session": item.session_id,
        "key": key,
        "status": "",
        "messages": 0,
        "sent": 0,
        "commits": 0,
        "remaining": 0,
        "error": None,
    }


def _outcome(row: dict[str, Any], summary: dict[str, Any], *, dry_run: bool) -> None:
    """Fill ``row`` from the worker's summary of the import job (``remaining`` set before)."""
    row["messages"] = int(summary.get("queued") or 0)
    row["sent"] = int(summary.get("sent") or 0)
    row["commits"] = int(summary.get("commits") or 0)
    row["error"] = summary.get("error") or summary.get("skipped")
    if dry_run:
        row["status"] = "dry_run"
    else:
        row["status"] = "failed" if row["error"] or row["remaining"] else "imported"


def run_import(
    settings: Settings,
    items: list[Transcript],
    *,
    commit: bool,
    dry_run: bool,
    now: float,
    progress: Any = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Import ``items`` oldest first; returns (per-transcript results, dry-run plan)."""
    from ovhooks.log import Log
    from ovhooks.session.store import StateStore

    log = Log(settings.state_dir, settings.log_level, component="import")
    store = StateStore(settings.state_dir)
    plan = None
    if dry_run:
        from ovhooks.dryrun.plan import Plan

        plan = Plan()
    run_jobs = job_runner(settings, log, plan)
    results = []
    for item in sorted(items, key=lambda t: t.mtime):
        # Sessions still in use are left for the live lifecycle to commit.
        idle = now - item.mtime > settings.idle_ttl_s
        job = import_job(settings, item, commit=commit and idle)
        row = _new_row(item, str(job["key"]))
        if up_to_date(store.load(row["key"]), item, commit=bool(job.get("commit"))):
            row["status"] = "up_to_date"
        else:
            summaries = run_jobs([job])
            if not dry_run:
                row["remaining"] = outbox_backlog(settings.state_dir).get(row["key"], 0)
            summary = summaries[0] if summaries else {"error": "worker failed (see the log)"}
            _outcome(row, dict(summary), dry_run=dry_run)
        results.append(row)
        if progress is not None:
            progress(item)
    return results, (plan.lines if plan is not None else [])


def totals_of(results: list[dict[str, Any]]) -> dict[str, int]:
    """The counts ``import`` reports over its per-transcript results."""

    def count(status: str) -> int:
        return sum(1 for r in results if r["status"] == status)

    return {
        "files": len(results),
        "imported": count("imported"),
        "up_to_date": count("up_to_date"),
        "failed": count("failed"),
        "messages": sum(r["messages"] for r in results),
        "sent": sum(r["sent"] for r in results),
        "commits": sum(r["commits"] for r in results),
    }


def _run_with_bar(
    settings: Settings, host: str, items: list[Transcript], out: Output, **how: Any
) -> tuple[list[dict[str, Any]], list[str]]:
    """``run_import``, with a progress bar on stderr when a person is watching."""
    if out.as_json or not items:
        return run_import(settings, items, **how)
    from rich.progress import Progress

    with Progress(console=out.err, transient=False) as bar:
        task = bar.add_task(f"importing {host} transcripts", total=len(items))
        return run_import(settings, items, progress=lambda _item: bar.advance(task), **how)


def _render(
    host: str, paths: list[str], since: str | None, dry_run: bool, doc: dict[str, Any]
) -> Callable[[Any], None]:
    results, totals = doc["results"], doc["totals"]

    def render(console: Any) -> None:
        if not results:
            looked = ", ".join(paths) or default_root(host, os.environ)
            variable = "CODEX_HOME" if host == "codex" else "CLAUDE_CONFIG_DIR"
            console.print(
                f"no {host} transcripts found in {looked}"
                + (f" (since {since})" if since else "")
                + f"; name files or folders to import, or set {variable} to the host's "
                "folder",
                markup=False,
            )
            return
        verb = "would send" if dry_run else "sent"
        console.print(
            f"{totals['files']} transcript(s): {totals['imported']} imported, "
            f"{totals['up_to_date']} already up to date, {totals['failed']} failed; "
            f"{totals['messages']} message(s) captured, {verb} "
            f"{totals['messages'] if dry_run else totals['sent']}, "
            f"{totals['commits']} commit(s)",
            markup=False,
        )
        for row in results:
            if row["error"]:
                console.print(f"  {row['path']}: {row['error']}", markup=False)

    return render


@boundary("import")
def import_(
    *,
    host: Annotated[str, typer.Argument(help="codex or claude")],
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            help="Transcript files or folders (default: the host's session folders: "
            "$CODEX_HOME/sessions, $CLAUDE_CONFIG_DIR/projects).",
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option(
            "--since", help="Only transcripts changed since a date or age (2026-01-31, 7d)."
        ),
    ] = None,
    commit: Annotated[
        bool,
        typer.Option(
            "--commit/--no-commit",
            help="Commit imported sessions that are idle, so memories get extracted.",
        ),
    ] = True,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be sent; send and change nothing.")
    ] = False,
    as_json: JsonFlag = False,
) -> int:
    """Backfill past transcripts into memory (resumable; sends only what is new).

    One OpenViking session per host session, with the same ids and content live capture
    uses, so the hooks later continue each session without sending a turn twice.

    JSON: {host, totals {files, imported, up_to_date, failed, messages, sent, commits},
    results: [{path, session, key, status, messages, sent, commits, remaining, error}],
    plan: [dry-run lines]}.
    """
    if host not in ("codex", "claude"):
        raise usage_error(f"unknown host {host!r}", "use codex or claude")
    settings = settings_from()
    now = time.time()
    named = list(paths or [])
    items = select(host, named, since, now, os.environ)
    out = Output("import", as_json=as_json)
    results, plan = _run_with_bar(
        settings, host, items, out, commit=commit, dry_run=dry_run, now=now
    )
    totals = totals_of(results)
    doc = {"host": host, "dry_run": dry_run, "totals": totals, "results": results, "plan": plan}
    out.emit(doc, _render(host, named, since, dry_run, doc))
    return int(ExitCode.INCOMPLETE) if totals["failed"] else 0
