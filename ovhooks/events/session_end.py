"""SessionEnd: catch up and commit in the worker, returning at once.

Codex clamps SessionEnd hooks to 3 s and Claude gives all of them 1.5 s together unless a
timeout is declared, so nothing here may wait for the network.
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    """Hand a catch-up capture and the session's last commit to the worker."""
    if not event.session_id or ctx.bypassed(event):
        return Reply()
    reason = event.reason or "other"
    ctx.hand_off(
        [
            ctx.job(
                event,
                capture=ctx.settings.capture,
                commit=f"session end ({reason})",
                end=reason,
            )
        ]
    )
    return Reply()
