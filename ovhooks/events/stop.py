"""Stop: capture the turn that just ended.

The hook hands a job to the worker and answers: reading the transcript, cleaning, queueing
and sending all happen in the worker, off the host's critical path. The answer may carry a
notice (once per outage, or once about records the server refused) and, with
``OVHOOKS_USAGE_VIEW=summary``, which memories were supplied this turn.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    """Hand the capture of this turn to the worker; reply with any notice for the user."""
    if not event.session_id or not ctx.settings.capture or ctx.bypassed(event):
        return Reply()
    message = outage_notice(ctx.settings.state_dir, ctx.session_key(event))
    reply = event.last_assistant_message if ctx.spec.reply_in_stop else ""
    job = ctx.job(event, capture=True, last_assistant=reply)
    if reply and ctx.settings.reply_wait_s:
        # Claude may write the turn (prompt and reply) after Stop fires; waiting for it keeps
        # the prompt before its reply (Claude Code 2.1.330: the file catches up within ~50 ms)
        job["wait_for_reply_s"] = ctx.settings.reply_wait_s
    elif ctx.spec.stop_before_transcript and ctx.settings.reply_wait_s:
        # Copilot CLI 1.0.102 fires Stop before it has written the turn to events.jsonl (it
        # writes there in batches; seen with the real CLI: a hook that read at once found only
        # the session's start, and the session was committed empty). Its Stop carries no
        # reply text, so the worker waits for the newest turn to be answered in the file
        # (and, as for every capture job of such a host, for the file itself: ``ctx.job``).
        job["wait_for_answer_s"] = ctx.settings.reply_wait_s
    ctx.hand_off([job])
    if ctx.settings.usage_view == "summary" and not ctx.dry_run:
        from ovhooks.recall.usage import take_summary

        usage = take_summary(ctx.settings.state_dir, ctx.session_key(event))
        if usage:
            message = f"{message}\n{usage}" if message else usage
    return Reply(system_message=message)


def outage_notice(state_dir: str, key: str) -> str | None:
    """Tell the user once per outage that this session's writes are stuck, and once about
    records the server refused for good.

    "Once" is claimed by creating a marker file named after the outage (``O_EXCL``: of all
    the Stops that see the outage, exactly one creates it), so it holds however many
    workers are still waiting to record anything. Reads the state file directly rather than
    through ``StateStore``: the hand-off stays free of the state/lock modules, and a torn or
    missing file here only means no notice.
    """
    import json

    from ovhooks.settings import layout

    try:
        with open(layout.state_path(state_dir, key), "rb") as fh:
            state = json.loads(fh.read())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(state, dict):
        return None
    notes = []
    error = state.get("last_error")
    outage = state.get("outage")
    if isinstance(error, dict) and isinstance(outage, dict):
        queued = len(state.get("queue") or [])
        if _claim(layout.notice_path(state_dir, key, f"outage-{outage.get('since')}")):
            notes.append(
                f"ovhooks: memory writes are failing ({str(error.get('error'))[:120]}); "
                f"{queued} queued write(s) kept and retried automatically. "
                "See `ovhooks status`."
            )
    set_aside = state.get("set_aside")
    if (
        isinstance(set_aside, int)
        and set_aside > 0
        and _claim(layout.notice_path(state_dir, key, f"set-aside-{set_aside}"))
    ):
        notes.append(
            f"ovhooks: the server refused {set_aside} record(s) as malformed; they are "
            "kept under the state directory's outbox/dead/ and no longer retried."
        )
    return " ".join(notes) or None


def _claim(path: str) -> bool:
    import os

    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return False
    except OSError:
        return False  # a read-only state dir: better no notice than one per Stop
    return True
