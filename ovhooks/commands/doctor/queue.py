"""Doctor's checks of what the hooks left behind: writes still queued or set aside as refused,
and errors logged in the last 24 hours."""

from __future__ import annotations

from ovhooks.commands.doctor.result import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.commands.doctor.result import Check

RECENT_ERROR_WINDOW_S = 24 * 3600


def check_queue(state_dir: str) -> Check:
    from ovhooks.commands.common import dead_letters, outbox_backlog
    from ovhooks.settings.layout import dead_root

    try:
        backlog = outbox_backlog(state_dir)
    except OSError:  # an unusable state directory: the state_dir check says how to fix it
        return check("queue", "skip", "skipped: the state directory is unusable")
    dead = dead_letters(state_dir)
    queued = sum(backlog.values())
    details = {"queued": queued, "sessions": len(backlog), "dead": dead}
    if queued:
        return check(
            "queue",
            "warn",
            f"{queued} queued write(s) in {len(backlog)} session(s)",
            "once the server works, `ovhooks flush` sends them now (hooks also retry)",
            **details,
        )
    if dead:
        return check(
            "queue",
            "warn",
            f"{dead} write(s) the server refused are kept in {dead_root(state_dir)}",
            "inspect them; delete the folder when done",
            **details,
        )
    return check("queue", "ok", "no queued writes", **details)


def check_recent_errors(state_dir: str, now: float) -> Check:
    from ovhooks.log import read_recent

    records = []
    for record in read_recent(state_dir, level="error", limit=200):
        ts = record.get("ts")
        if isinstance(ts, int | float) and now - ts <= RECENT_ERROR_WINDOW_S:
            records.append(record)
    if not records:
        return check("errors", "ok", "no errors logged in the last 24 h", count=0)
    events: dict[str, int] = {}
    for record in records:
        events[str(record.get("event"))] = events.get(str(record.get("event")), 0) + 1
    last = records[-1]
    summary = (
        f"{len(records)} error(s) in the last 24 h ("
        + ", ".join(f"{k} ×{v}" for k, v in sorted(events.items()))
        + ")"
    )
    from ovhooks.settings.layout import log_path as layout_log_path

    log_path = layout_log_path(state_dir)
    return check(
        "errors",
        "warn",
        summary,
        f"details in {log_path}",
        count=len(records),
        events=events,
        last={
            "event": last.get("event"),
            "ts": last.get("ts"),
            "error": str(last.get("error", ""))[:200],
        },
    )
