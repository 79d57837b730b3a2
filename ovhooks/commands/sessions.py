"""Lifecycle by hand: ``commit`` a session now, run the idle ``sweep``, ``flush`` the queue.

All three run the worker in this process (not detached) and report what it did, so a person
or an agent sees at once whether the writes reached the store.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ovhooks.commands.common import job_runner, outbox_backlog, settings_from
from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.commands.output import JsonFlag, Output, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container
    from typing import Any

    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import Job, State


def find_session(states: list[State], wanted: str) -> State:
    """A session by OpenViking id, host id, or a unique prefix of either."""
    for doc in states:
        if wanted in (doc.get("key"), doc.get("ov_session_id"), doc.get("host_session_id")):
            return doc
    matches = [
        d
        for d in states
        if str(d.get("key", "")).startswith(wanted)
        or str(d.get("host_session_id", "")).startswith(wanted)
    ]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise CommandError(
            f"{wanted!r} matches {len(matches)} sessions",
            fix="give more of the id (`ovhooks status` lists them)",
            code=ExitCode.USAGE,
            slug="ambiguous",
        )
    raise CommandError(
        f"no session {wanted!r} is known here",
        fix="`ovhooks status` lists the sessions ovhooks has seen",
        code=ExitCode.NOT_FOUND,
        slug="not_found",
    )


def latest_session(states: list[State]) -> State:
    candidates = [
        d
        for d in states
        if not d.get("parent") and isinstance(d.get("last_activity_at"), int | float)
    ]
    if not candidates:
        raise CommandError(
            "no session with captured turns yet",
            fix="name one: `ovhooks commit SESSION`",
            code=ExitCode.NOT_FOUND,
            slug="not_found",
        )
    return max(candidates, key=lambda d: float(d.get("last_activity_at") or 0))


def capture_job(settings: Settings, doc: State, reason: str | None) -> Job:
    """Catch up on the transcript (as a Stop would), then commit with ``reason``."""
    from ovhooks.settings.layout import job_for_state

    work: dict[str, Any] = {"capture": bool(doc.get("transcript_path")) and settings.capture}
    if reason:
        work["commit"] = reason
    return job_for_state(doc, **work)


def run(
    settings: Settings, jobs: list[Job], *, dry_run: bool = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """Run jobs now; returns (per-session results, dry-run plan lines)."""
    from ovhooks.log import Log

    plan = None
    if dry_run:
        from ovhooks.dryrun.plan import Plan

        plan = Plan()
    log = Log(settings.state_dir, settings.log_level, component="cli")
    summaries = job_runner(settings, log, plan)(jobs)
    backlog = outbox_backlog(settings.state_dir)
    by_key = {str(s.get("key")): s for s in summaries}
    results = []
    for job in jobs:
        key = str(job["key"])
        summary = by_key.get(key, {"error": "the worker did not finish (see the log)"})
        results.append(
            {
                "key": key,
                "queued": int(summary.get("queued") or 0),
                "sent": int(summary.get("sent") or 0),
                "commits": int(summary.get("commits") or 0),
                "remaining": 0 if dry_run else backlog.get(key, 0),
                "error": summary.get("error") or summary.get("skipped"),
            }
        )
    return results, (plan.lines if plan is not None else [])


def _exit_for(results: list[dict[str, Any]]) -> int:
    if any(r["error"] or r["remaining"] for r in results):
        return int(ExitCode.INCOMPLETE)
    return 0


def _render(results: list[dict[str, Any]], plan: list[str], empty: str) -> Any:
    def render(console: Any) -> None:
        if not results:
            console.print(empty)
        for r in results:
            line = f"{r['key']}: {r['sent']} message(s) sent, {r['commits']} commit(s)"
            if r["remaining"]:
                line += f", {r['remaining']} still queued"
            if r["error"]:
                line += f" — {r['error']}"
            console.print(line, markup=False)
        for line in plan:
            console.print(f"dry-run: would {line}", markup=False)

    return render


def _states(settings: Settings) -> list[State]:
    from ovhooks.session.store import StateStore

    return StateStore(settings.state_dir).all()


def _queued_jobs(settings: Settings, states: list[State], skip: Container[str] = ()) -> list[Job]:
    """A send-only job for each session with queued writes (``skip``: already has a job)."""
    from ovhooks.settings.layout import job_for_state

    by_key = {str(d["key"]): d for d in states}
    return [
        job_for_state(by_key.get(key) or {"key": key})
        for key in outbox_backlog(settings.state_dir)
        if key not in skip
    ]


@boundary("commit")
def commit(
    session: Annotated[
        str | None,
        typer.Argument(
            help="OpenViking session (cx-…/cc-…), host session id, or a unique prefix. "
            "Default: the most recently active session.",
        ),
    ] = None,
    all_sessions: Annotated[
        bool, typer.Option("--all", help="Commit every session with uncommitted turns.")
    ] = False,
    as_json: JsonFlag = False,
) -> int:
    """Capture a session's latest turns and commit it now, so its memories get extracted.

    Exit code 7 when writes stayed queued (server down). JSON: {results: [{key, queued,
    sent, commits, remaining, error}]}.
    """
    settings = settings_from()
    states = _states(settings)
    if all_sessions:
        chosen = [d for d in states if int(d.get("uncommitted") or 0) > 0]
    elif session:
        chosen = [find_session(states, session)]
    else:
        chosen = [latest_session(states)]
    jobs = [capture_job(settings, doc, "manual") for doc in chosen]
    results, _plan = run(settings, jobs)
    Output("commit", as_json=as_json).emit(
        {"results": results}, _render(results, [], "nothing to commit")
    )
    return _exit_for(results)


@boundary("sweep")
def sweep(
    ttl: Annotated[
        float | None,
        typer.Option(
            "--ttl",
            help="Idle seconds before a session is committed (default: OVHOOKS_IDLE_TTL_S).",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be sent.")] = False,
    as_json: JsonFlag = False,
) -> int:
    """Commit sessions idle longer than the TTL, and send queued writes.

    The same idle sweep SessionStart runs in the background: a session with uncommitted
    turns and no activity for --ttl seconds is captured up to date and committed.

    JSON: {results: [...], plan: [lines, dry run only]}.
    """
    from ovhooks.session.lifecycle import session_start_commits

    settings = settings_from()
    states = _states(settings)
    decisions = session_start_commits(
        states,
        new_key="",
        host="",
        source="startup",
        now=time.time(),
        active_window_s=0.0,
        idle_ttl_s=settings.idle_ttl_s if ttl is None else ttl,
    )
    by_key = {str(d["key"]): d for d in states}
    jobs = [capture_job(settings, by_key[key], reason) for key, reason in decisions]
    jobs += _queued_jobs(settings, states, skip=dict(decisions))
    results, plan = run(settings, jobs, dry_run=dry_run)
    Output("sweep", as_json=as_json).emit(
        {"results": results, "plan": plan},
        _render(results, plan, "nothing idle to commit, nothing queued"),
    )
    return 0 if dry_run else _exit_for(results)


@boundary("flush")
def flush(as_json: JsonFlag = False) -> int:
    """Send every queued write now and report what happened.

    Exit code 7 if some stay queued (server still down). JSON: {results: [{key, sent,
    commits, remaining, error}]}.
    """
    settings = settings_from()
    results, _plan = run(settings, _queued_jobs(settings, _states(settings)))
    Output("flush", as_json=as_json).emit(
        {"results": results}, _render(results, [], "nothing queued")
    )
    return _exit_for(results)
