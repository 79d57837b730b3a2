"""PreToolUse: keep filesystem tools away from ``viking://`` URIs.

A ``viking://`` URI names memory on the OpenViking server, not a file: Read, Glob and Grep can
only fail on it, so the call is denied with a reason that tells the model which ovhooks
command does what it meant (``read``, ``ls``, ``search``). Nothing else is ever blocked: every
other tool, and every call whose path is a real path, gets the no-op (never ``decision``,
which on PreToolUse would mean "allow without asking").
"""

from __future__ import annotations

from ovhooks.hosts.base import Reply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.events.context import HookContext
    from ovhooks.hosts.base import Event

SCHEME = "viking://"
# The fields that name *where* a tool looks. Grep's ``pattern`` is what it looks *for*:
# grepping local code for the text "viking://" is legitimate and must not be blocked.
_LOCATION_FIELDS = {
    "Read": ("file_path", "path"),
    "Glob": ("path", "pattern"),
    "Grep": ("path", "glob"),
}


def viking_target(tool_name: str, tool_input: Mapping[str, Any]) -> str:
    """The ``viking://`` URI a Read/Glob/Grep call points at, or ``""``."""
    for field in _LOCATION_FIELDS.get(tool_name, ()):
        value = tool_input.get(field)
        if isinstance(value, str) and value.strip()[: len(SCHEME)].lower() == SCHEME:
            return value.strip()
    return ""


def deny_reason(
    tool_name: str, uri: str, tool_input: Mapping[str, Any], shown_name: str = ""
) -> str:
    """Why the call is denied and what to run instead; ``shown_name`` is the tool's name as
    the model called it (Gemini's ``read_file`` is guarded as ``Read``)."""
    import shlex

    if tool_name == "Grep":
        pattern = tool_input.get("pattern")
        query = pattern if isinstance(pattern, str) and pattern.strip() else "<what you look for>"
        command = f"ovhooks search {shlex.quote(query)}"
        what = "search memory by meaning"
    elif tool_name == "Glob" or uri.endswith("/"):
        command = f"ovhooks ls {shlex.quote(uri.split('*', 1)[0] or SCHEME)}"
        what = "list a memory directory"
    else:
        command = f"ovhooks read {shlex.quote(uri)}"
        what = "read a memory file"
    return (
        f"{uri} is an OpenViking memory URI, not a file: {shown_name or tool_name} cannot "
        "open it. "
        f"Use the shell instead to {what}: `{command}`. "
        "Also: `ovhooks ls viking://…` lists, `ovhooks read viking://…` reads, "
        '`ovhooks search "…"` searches memory.'
    )


def handle(event: Event, ctx: HookContext) -> Reply:
    """Deny a Read/Glob/Grep aimed at a ``viking://`` URI, naming the command to use instead."""
    uri = viking_target(event.tool_name, event.tool_input)
    if not uri:
        return Reply()
    ctx.log.info("viking_uri_guard", tool=event.tool_name, uri=uri[:200])
    return Reply(
        specific={
            "permissionDecision": "deny",
            "permissionDecisionReason": deny_reason(
                event.tool_name,
                uri,
                event.tool_input,
                str(event.payload.get("gemini_tool_name") or ""),
            ),
        }
    )
