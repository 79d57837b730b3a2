"""PreCompact: catch up with the transcript, then commit, before the host forgets.

Memories injected earlier in this session may be injected again after the compaction, since
the host drops them from its context.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    """Let recalled memories be injected again; hand a catch-up and a commit to the worker."""
    if not event.session_id or ctx.bypassed(event):
        return Reply()
    key = ctx.session_key(event)
    if not ctx.dry_run:
        from ovhooks.recall import reset_session

        reset_session(ctx.settings, key)
    if ctx.settings.capture:
        trigger = event.trigger or "auto"
        ctx.hand_off([ctx.job(event, capture=True, commit=f"pre-compact ({trigger})")])
    return Reply()
