"""Stop: capture the turn that just ended.

The hook only hands a job to the worker and answers: reading the transcript, cleaning,
queueing and sending all happen in the worker, off the host's critical path.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    if not event.session_id or not ctx.settings.capture or ctx.bypassed(event):
        return Reply()
    message, notified = outage_notice(ctx, ctx.session_key(event))
    ctx.hand_off(
        [
            ctx.job(
                event,
                capture=True,
                last_assistant=event.last_assistant_message if event.host == "claude" else "",
                error_notified=notified,
            )
        ]
    )
    if ctx.settings.usage_view == "summary" and not ctx.dry_run:
        from ovhooks.recall.usage import take_summary

        usage = take_summary(ctx.settings.state_dir, ctx.session_key(event))
        if usage:
            message = f"{message}\n{usage}" if message else usage
    return Reply(system_message=message)


def outage_notice(ctx: HookContext, key: str) -> tuple[str | None, bool]:
    """Tell the user once when this session's writes are stuck (server down, bad key).

    Reads the state file directly rather than through ``StateStore``: the hand-off must stay
    free of the state/lock modules (the worker child imports them after the fork), and a
    torn or missing file here only means no notice.
    """
    import json
    import os

    path = os.path.join(ctx.settings.state_dir, "sessions", key + ".json")
    try:
        with open(path, "rb") as fh:
            state = json.loads(fh.read())
    except (OSError, ValueError):
        return None, False
    error = state.get("last_error") if isinstance(state, dict) else None
    if not isinstance(error, dict) or state.get("error_notified"):
        return None, False
    queued = error.get("queued") or 0
    return (
        f"ovhooks: memory writes are failing ({str(error.get('error'))[:120]}); "
        f"{queued} queued write(s) kept and retried automatically. See `ovhooks status`.",
        True,
    )
