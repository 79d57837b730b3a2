"""What a handler decides, how much context any host accepts, and Claude Code's reply shape
(below every host's package).

``render_hook_output`` is the shape Claude Code reads and most hosts copied (Codex, the shims
of Pi and OpenCode): a host declares which events take ``hookSpecificOutput``
(``HostSpec.reply_events``); a host with its own shape brings its own renderer (Gemini CLI).
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["MAX_CONTEXT_CHARS", "Reply", "cap_context", "render_hook_output"]

# Both hosts cut additionalContext at 10,000 characters; stay under with room for a marker.
MAX_CONTEXT_CHARS = 9500
_TRUNCATED = "\n[ovhooks: context truncated]"


class Reply:
    """What a handler decided; ``render_reply`` turns it into the host's JSON."""

    __slots__ = ("context", "specific", "system_message")

    def __init__(
        self,
        context: str | None = None,
        system_message: str | None = None,
        specific: Mapping[str, Any] | None = None,
    ) -> None:
        self.context = context
        self.system_message = system_message
        self.specific = dict(specific or {})


def cap_context(context: str) -> str:
    """``context`` cut to what every host accepts, with a marker when cut."""
    if len(context) > MAX_CONTEXT_CHARS:
        return context[: MAX_CONTEXT_CHARS - len(_TRUNCATED)] + _TRUNCATED
    return context


def render_hook_output(event_name: str, reply: Reply, specific_events: frozenset[str]) -> str:
    """Exactly one JSON object in Claude Code's shape: context and the handler's specific
    fields under ``hookSpecificOutput`` for ``specific_events``, else ``systemMessage`` only
    (hosts that validate strictly refuse any other field there)."""
    out: dict[str, Any] = {}
    if event_name in specific_events:
        hook_specific: dict[str, Any] = {}
        if reply.context:
            hook_specific["additionalContext"] = cap_context(reply.context)
        hook_specific.update(reply.specific)
        if hook_specific:
            out["hookSpecificOutput"] = {"hookEventName": event_name, **hook_specific}
    if reply.system_message:
        out["systemMessage"] = reply.system_message
    return json.dumps(out, ensure_ascii=False)
