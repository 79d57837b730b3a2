"""PostCompact: nothing to write (PreCompact committed); a valid no-op on every host."""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    """Nothing to do: the no-op reply."""
    return Reply()
