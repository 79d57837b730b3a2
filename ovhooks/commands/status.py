"""``ovhooks status``: the configuration in force (and where each value came from), server
health, every known session, the write queue and recent errors."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ovhooks.commands.common import command_backend, settings_from
from ovhooks.commands.output import JsonFlag, Output, age, boundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings


def config_rows(settings: Settings) -> list[dict[str, Any]]:
    """Every setting with its value (API key masked) and its source."""
    values = settings.as_dict()
    return [
        {"name": name, "value": value, "source": settings.sources.get(name, "default")}
        for name, value in values.items()
    ]


def session_rows(state_dir: str, now: float, limit: int) -> list[dict[str, Any]]:
    """The most recently seen sessions first."""
    from ovhooks.commands.common import outbox_backlog
    from ovhooks.session.store import StateStore
    from ovhooks.settings.readback import count, moment

    backlog = outbox_backlog(state_dir)
    rows = []
    for doc in StateStore(state_dir, reader=True).all():
        # Read through ``readback``: one hand-edited document ("many" turns, a time of NaN or
        # 1e308) counts as 0 and never seen, instead of failing status, doctor and the viewer.
        seen = [moment(doc.get(k)) for k in ("last_activity_at", "registered_at", "created_at")]
        last_seen = max((v for v in seen if v is not None), default=0.0)
        error = doc.get("last_error")
        uncommitted = count(doc.get("uncommitted")) or 0
        rows.append(
            {
                "key": str(doc.get("key")),
                "host": str(doc.get("host") or ""),
                "ov_session_id": str(doc.get("ov_session_id") or doc.get("key")),
                "host_session_id": str(doc.get("host_session_id") or ""),
                "parent": doc.get("parent"),
                "turns_captured": count(doc.get("turns_captured")) or 0,
                "messages_sent": count(doc.get("messages_sent")) or 0,
                "uncommitted": uncommitted,
                "commit_pending": uncommitted > 0,
                "commit_count": count(doc.get("commit_count")) or 0,
                "last_activity_at": seen[0],
                "last_seen_s_ago": round(now - last_seen, 1) if last_seen else None,
                "queued": backlog.get(str(doc.get("key")), 0),
                "ended": bool(doc.get("ended")),
                "last_error": str(error.get("error")) if isinstance(error, dict) else None,
                "last_extraction": doc.get("last_extraction")
                if isinstance(doc.get("last_extraction"), dict)
                else None,
            }
        )
    rows.sort(key=lambda r: (r["last_seen_s_ago"] is None, r["last_seen_s_ago"] or 0.0))
    return rows[:limit] if limit > 0 else rows


def server_health(settings: Settings, backend: Backend) -> dict[str, Any]:
    from ovhooks.transport.errors import BackendError

    try:
        health = backend.health()
    except BackendError as exc:
        return {"reachable": False, "version": None, "error": str(exc)}
    return {
        "reachable": True,
        "version": health.get("version"),
        "healthy": health.get("healthy", True),
        "auth_mode": health.get("auth_mode"),
        "error": None,
    }


def build_status(
    settings: Settings,
    backend: Backend | None,
    *,
    now: float,
    limit: int,
    cwd: str | None = None,
) -> dict[str, Any]:
    import os

    from ovhooks.commands.common import current_identity, dead_letters, outbox_backlog
    from ovhooks.commands.status_hosts import host_rows
    from ovhooks.log import read_recent

    backlog = outbox_backlog(settings.state_dir)
    errors = read_recent(settings.state_dir, level="error", limit=5)
    every_session = session_rows(settings.state_dir, now, 0)
    return {
        "backend": settings.backend,
        "why_backend": settings.why_backend,
        "url": settings.url,
        "state_dir": settings.state_dir,
        "config": config_rows(settings),
        "config_warnings": list(settings.warnings),
        "project": current_identity(settings, cwd).as_dict(),
        "server": server_health(settings, backend) if backend is not None else None,
        "sessions": every_session[:limit] if limit else every_session,
        "hosts": host_rows(every_session, os.environ, cwd or os.getcwd()),
        "queue": {
            "queued": sum(backlog.values()),
            "sessions": backlog,
            "dead": dead_letters(settings.state_dir),
        },
        "semantic": _semantic(settings),
        "recall": recall_summary(settings),
        "recent_errors": [
            {
                "ts": r.get("ts"),
                "event": r.get("event"),
                "session": r.get("session"),
                "error": str(r.get("error", ""))[:300],
            }
            for r in errors
        ],
    }


def recall_summary(settings: Settings) -> dict[str, Any]:
    """Whether prompts get recall, and the user's minimum confidence (``recall.confidence``:
    one model of the fused score, for both backends)."""
    return {"enabled": settings.recall, "min_confidence": settings.recall_min_confidence}


def describe_recall(recall: dict[str, Any]) -> str:
    if not recall["enabled"]:
        return "recall: off (OVHOOKS_RECALL=0)"
    minimum = float(recall["min_confidence"])
    line = f"recall: on, minimum confidence {minimum:.2f}"
    if not minimum:
        line += " (every memory the decision admits; OVHOOKS_RECALL_MIN_CONFIDENCE raises it)"
    return line


def _semantic(settings: Settings) -> dict[str, Any]:
    from ovhooks.semantic.report import semantic_status

    return semantic_status(settings)


# --- rendering for people --------------------------------------------------------------------

_SESSION_COLUMNS = (
    "host",
    "OpenViking session",
    "turns",
    "last activity",
    "commit pending",
    "queued",
    "extraction",
    "error",
)


def _print_header(console: Any, doc: dict[str, Any]) -> None:
    from rich.markup import escape

    server = doc["server"]
    console.print(f"[bold]backend[/]: {doc['backend']} — {escape(doc['why_backend'])}")
    if server is not None:
        state = (
            f"[green]up[/], version {server['version']}"
            if server["reachable"]
            else f"[red]unreachable[/] ({escape(str(server['error']))})"
        )
        where = doc["url"] if doc["backend"] == "openviking" else "local store"
        console.print(f"[bold]server[/]: {escape(where)} {state}")
    project = doc["project"]
    console.print(
        f"[bold]project[/]: {escape(project['peer'] or '(none)')} — "
        f"from {escape(project['source'])}"
    )
    for warning in [*doc["config_warnings"], *project["warnings"]]:
        console.print(f"[yellow]config warning[/]: {escape(warning)}")
    from ovhooks.commands.semantic import describe

    console.print(escape(describe(doc["semantic"])))
    console.print(escape(describe_recall(doc["recall"])))


def _print_config(console: Any, rows: list[dict[str, Any]], show_all_config: bool) -> None:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="configuration", title_justify="left")
    table.add_column("setting")
    table.add_column("value")
    table.add_column("from")
    for row in rows:
        if not show_all_config and row["source"] == "default":
            continue
        table.add_row(row["name"], escape(str(row["value"])), escape(row["source"]))
    console.print(table)
    if not show_all_config:
        console.print("[dim](defaults hidden; --all-config shows every setting)[/]")


def _print_sessions(console: Any, rows: list[dict[str, Any]], now: float) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ovhooks.session.commit_outcome import describe

    sessions = Table(title="sessions", title_justify="left")
    for column in _SESSION_COLUMNS:
        # the session id is what people copy into `ovhooks commit`: never cut it short
        if column == "OpenViking session":
            sessions.add_column(column, overflow="fold")
        else:
            sessions.add_column(column)
    for row in rows:
        activity = row["last_activity_at"]
        sessions.add_row(
            row["host"],
            escape(row["ov_session_id"]),
            str(row["turns_captured"]),
            age(now - activity if activity is not None else None),
            f"yes ({row['uncommitted']} msg)" if row["commit_pending"] else "no",
            str(row["queued"]),
            escape(describe(row["last_extraction"])),
            escape((row["last_error"] or "")[:60]),
        )
    console.print(sessions if rows else "[dim]no sessions recorded yet[/]")


def _print_queue_and_errors(console: Any, doc: dict[str, Any], now: float) -> None:
    from rich.markup import escape

    queue = doc["queue"]
    console.print(
        f"[bold]queue[/]: {queue['queued']} queued write(s) in "
        f"{len(queue['sessions'])} session(s); {queue['dead']} refused"
    )
    if doc["recent_errors"]:
        console.print("[bold]recent errors[/]:")
        for err in doc["recent_errors"]:
            ts = err["ts"]
            when = age(now - float(ts)) if isinstance(ts, int | float) else "?"
            console.print(
                f"  {when}: {escape(str(err['event']))} {escape(str(err['error'] or ''))[:160]}"
            )


def _print_hosts(console: Any, rows: list[dict[str, Any]], now: float) -> None:
    parts = []
    for row in rows:
        installed = ", ".join(row["installed"]) if row["installed"] else "not installed"
        if row["last_capture_at"]:
            active = f"last capture {age(now - row['last_capture_at'])}"
        else:
            active = "no capture yet"
        parts.append(f"{row['label']} ({installed}; {row['sessions']} sessions, {active})")
    console.print("[bold]hosts[/]: " + "; ".join(parts))


def _render(doc: dict[str, Any], now: float, show_all_config: bool) -> Callable[[Any], None]:
    def render(console: Any) -> None:
        _print_header(console, doc)
        _print_config(console, doc["config"], show_all_config)
        _print_hosts(console, doc["hosts"], now)
        _print_sessions(console, doc["sessions"], now)
        _print_queue_and_errors(console, doc, now)

    return render


@boundary("status")
def status(
    offline: Annotated[bool, typer.Option("--offline", help="Do not ask the server.")] = False,
    limit: Annotated[int, typer.Option("--limit", help="Show at most N sessions (0: all).")] = 20,
    all_config: Annotated[
        bool, typer.Option("--all-config", help="List every setting, defaults included.")
    ] = False,
    as_json: JsonFlag = False,
) -> int:
    """Show the config in force (and its sources), server health, sessions and queue.

    Per session: host, OpenViking session, turns captured, last activity, commit pending.
    Also the write queue and recent errors.

    JSON keys: backend, why_backend, url, state_dir, config [{name, value, source}],
    config_warnings, server {reachable, version, error}, hosts [{host, label, installed
    [scopes], sessions, last_capture_at}], sessions [...], queue {queued, sessions, dead},
    semantic {enabled, model, state, pending, rss_mib, error, socket}, recall {enabled,
    min_confidence}, recent_errors [...].
    """
    settings = settings_from()
    now = time.time()
    backend = None if offline else command_backend(settings, timeout_s=2.0)
    doc = build_status(settings, backend, now=now, limit=limit)
    Output("status", as_json=as_json).emit(doc, _render(doc, now, all_config))
    return 0
