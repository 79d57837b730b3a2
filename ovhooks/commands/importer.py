"""``ovhooks import codex|claude [PATH...]``: backfill past transcripts into memory.

Each transcript becomes the session live capture would have used (``cx-<id>``/``cc-<id>``,
the same peer), and goes through the worker's own capture path, so the store receives exactly
what the Stop hook would have sent. The session's state cursor makes it resumable and lets
live capture continue later without sending a turn twice.
"""

from __future__ import annotations

import glob
import os
import re
import time

from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.transcripts.reader import parse_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    import typer

    from ovhooks.config import Settings
    from ovhooks.layout import Job, State

_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$", re.I)
_HEAD_LINES = 50


class Transcript:
    """One transcript file and what identifies its session."""

    __slots__ = ("cwd", "host", "mtime", "path", "session_id", "size")

    def __init__(
        self, *, host: str, path: str, session_id: str, cwd: str, mtime: float, size: int
    ) -> None:
        self.host = host
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.mtime = mtime
        self.size = size


def default_root(host: str, environ: Mapping[str, str]) -> str:
    """The folder the host keeps its transcripts in (where import looks by default)."""
    from ovhooks.commands import hostconfig

    if host == "codex":
        return os.path.join(hostconfig.codex_home(environ), "sessions")
    return os.path.join(hostconfig.claude_dir(environ), "projects")


def default_paths(host: str, environ: Mapping[str, str]) -> list[str]:
    if host == "codex":
        root = default_root(host, environ)
        return sorted(
            glob.glob(os.path.join(glob.escape(root), "**", "rollout-*.jsonl"), recursive=True)
        )
    root = default_root(host, environ)
    return sorted(glob.glob(os.path.join(glob.escape(root), "*", "*.jsonl")))


def expand(host: str, paths: list[str], environ: Mapping[str, str]) -> list[str]:
    """Files named, or the host's transcripts under folders named, or the default folders."""
    if not paths:
        return default_paths(host, environ)
    out: list[str] = []
    for path in paths:
        if os.path.isfile(path):
            out.append(os.path.abspath(path))
        elif os.path.isdir(path):
            pattern = "rollout-*.jsonl" if host == "codex" else "*.jsonl"
            found = glob.glob(os.path.join(glob.escape(path), "**", pattern), recursive=True)
            # Claude keeps subagent transcripts in <session>/subagents/: not sessions of their own
            out.extend(
                os.path.abspath(f) for f in sorted(found) if f"{os.sep}subagents{os.sep}" not in f
            )
        else:
            raise CommandError(
                f"{path} does not exist",
                fix="give a transcript file or folder",
                code=ExitCode.NOT_FOUND,
                slug="not_found",
            )
    return list(dict.fromkeys(out))


def _head(path: str) -> list[dict[str, Any]]:
    records = []
    with open(path, "rb") as fh:
        for _ in range(_HEAD_LINES):
            line = fh.readline()
            if not line:
                break
            record = parse_line(line)
            if record is not None:
                records.append(record)
    return records


def identify(host: str, path: str) -> Transcript | None:
    """The session a transcript belongs to, as live capture names it; None if unknown."""
    try:
        stat = os.stat(path)
        head = _head(path)
    except OSError:
        return None
    session_id = cwd = ""
    if host == "codex":
        for record in head:
            payload = record.get("payload")
            if record.get("type") == "session_meta" and isinstance(payload, dict):
                session_id = str(payload.get("id") or payload.get("session_id") or "")
                cwd = str(payload.get("cwd") or "")
                break
        if not session_id:
            match = _UUID.search(os.path.basename(path))
            session_id = match.group(1) if match else ""
    else:
        session_id = os.path.basename(path)[: -len(".jsonl")]
        for record in head:
            if isinstance(record.get("cwd"), str) and record["cwd"]:
                cwd = record["cwd"]
                break
    if not session_id:
        return None
    return Transcript(
        host=host,
        path=path,
        session_id=session_id,
        cwd=cwd,
        mtime=stat.st_mtime,
        size=stat.st_size,
    )


def parse_since(text: str, now: float) -> float:
    """``2026-01-31``, ``2026-01-31T12:00``, or a relative ``7d`` / ``12h`` / ``30m``."""
    text = text.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([dhm])", text)
    if match:
        return now - float(match.group(1)) * {"d": 86400, "h": 3600, "m": 60}[match.group(2)]
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise CommandError(
            f"cannot read --since {text!r}",
            fix="use a date (2026-01-31) or an age (7d, 12h)",
            code=ExitCode.USAGE,
            slug="usage",
        ) from None
    return moment.timestamp()


def import_job(settings: Settings, item: Transcript, *, commit: bool) -> Job:
    """The job a Stop hook would hand the worker for this transcript."""
    from ovhooks.ids import ov_session_id
    from ovhooks.project import resolve

    peer = settings.actor_peer
    if not peer and item.cwd:
        peer = resolve(item.cwd).peer
    from ovhooks.layout import new_job

    work: dict[str, Any] = {"capture": True}
    if commit:
        work["commit"] = "import"
    return new_job(
        ov_session_id(item.host, item.session_id),
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
    from ovhooks.commands.common import outbox_backlog
    from ovhooks.log import Log
    from ovhooks.state import StateStore
    from ovhooks.worker import run_jobs

    log = Log(settings.state_dir, settings.log_level, component="import")
    store = StateStore(settings.state_dir)
    plan = None
    if dry_run:
        from ovhooks.plan import Plan

        plan = Plan()
    results = []
    for item in sorted(items, key=lambda t: t.mtime):
        # Sessions still in use are left for the live lifecycle to commit.
        idle = now - item.mtime > settings.idle_ttl_s
        job = import_job(settings, item, commit=commit and idle)
        key = str(job["key"])
        row: dict[str, Any] = {
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
        if up_to_date(store.load(key), item, commit=bool(job.get("commit"))):
            row["status"] = "up_to_date"
        else:
            summaries = run_jobs(settings, [job], log=log, plan=plan)
            summary = summaries[0] if summaries else {"error": "worker failed (see the log)"}
            row["messages"] = int(summary.get("queued") or 0)
            row["sent"] = int(summary.get("sent") or 0)
            row["commits"] = int(summary.get("commits") or 0)
            row["error"] = summary.get("error") or summary.get("skipped")
            if not dry_run:
                row["remaining"] = outbox_backlog(settings.state_dir).get(key, 0)
            row["status"] = (
                "dry_run"
                if dry_run
                else "failed"
                if row["error"] or row["remaining"]
                else "imported"
            )
        results.append(row)
        if progress is not None:
            progress(item)
    return results, (plan.lines if plan is not None else [])


def register(app: typer.Typer) -> None:
    import typer

    from ovhooks.commands.common import settings_from
    from ovhooks.commands.output import JsonOption, Output, boundary

    @app.command("import", rich_help_panel="Lifecycle")
    @boundary("import")
    def import_(
        *,
        host: str = typer.Argument(..., help="codex or claude"),
        paths: list[str] = typer.Argument(  # noqa: B008 (Typer declares options this way)
            None,
            help="Transcript files or folders (default: the host's session folders: "
            "$CODEX_HOME/sessions, $CLAUDE_CONFIG_DIR/projects).",
        ),
        since: str = typer.Option(
            None, "--since", help="Only transcripts changed since a date or age (2026-01-31, 7d)."
        ),
        commit: bool = typer.Option(
            True,
            "--commit/--no-commit",
            help="Commit imported sessions that are idle, so memories get extracted.",
        ),
        dry_run: bool = typer.Option(
            False, "--dry-run", help="Say what would be sent; send and change nothing."
        ),
        as_json: bool = JsonOption,
    ) -> int:
        """Backfill past transcripts into memory (resumable; sends only what is new).

        One OpenViking session per host session, with the same ids and content live capture
        uses, so the hooks later continue each session without sending a turn twice.

        JSON: {host, totals {files, imported, up_to_date, failed, messages, sent, commits},
        results: [{path, session, key, status, messages, sent, commits, remaining, error}],
        plan: [dry-run lines]}.
        """
        if host not in ("codex", "claude"):
            raise CommandError(
                f"unknown host {host!r}",
                fix="use codex or claude",
                code=ExitCode.USAGE,
                slug="usage",
            )
        settings = settings_from()
        now = time.time()
        files = expand(host, list(paths or []), os.environ)
        cutoff = parse_since(since, now) if since else None
        items = []
        for path in files:
            item = identify(host, path)
            if item is not None and (cutoff is None or item.mtime >= cutoff):
                items.append(item)
        out = Output("import", as_json=as_json)
        if as_json or not items:
            results, plan = run_import(settings, items, commit=commit, dry_run=dry_run, now=now)
        else:
            from rich.progress import Progress

            with Progress(console=out.err, transient=False) as bar:
                task = bar.add_task(f"importing {host} transcripts", total=len(items))
                results, plan = run_import(
                    settings,
                    items,
                    commit=commit,
                    dry_run=dry_run,
                    now=now,
                    progress=lambda _item: bar.advance(task),
                )
        totals = {
            "files": len(results),
            "imported": sum(1 for r in results if r["status"] == "imported"),
            "up_to_date": sum(1 for r in results if r["status"] == "up_to_date"),
            "failed": sum(1 for r in results if r["status"] == "failed"),
            "messages": sum(r["messages"] for r in results),
            "sent": sum(r["sent"] for r in results),
            "commits": sum(r["commits"] for r in results),
        }

        def render(console: Any) -> None:
            if not results:
                looked = ", ".join(paths or []) or default_root(host, os.environ)
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

        out.emit(
            {"host": host, "dry_run": dry_run, "totals": totals, "results": results, "plan": plan},
            render,
        )
        return int(ExitCode.INCOMPLETE) if totals["failed"] else 0
