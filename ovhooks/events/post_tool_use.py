"""Placeholder: a valid no-op until the Claude Code host work lands (issue 5)."""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event


def handle(event: Event, ctx: HookContext) -> Reply:
    return Reply()
