"""What a handler decides and how much context any host accepts (below every host's module).

``hosts/base`` renders a ``Reply`` for Codex, Claude Code and the shim hosts, ``hosts/gemini``
for Gemini CLI; both read these from here, so neither imports the other back.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["MAX_CONTEXT_CHARS", "Reply", "cap_context"]

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
