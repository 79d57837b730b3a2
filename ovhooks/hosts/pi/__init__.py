"""The Pi coding agent's payloads, as its extension shim sends them (``shims/pi_extension.ts``).

Pi has no command hooks: the shim starts ``ovhooks <hook> --host pi`` for its events and
passes ``hook_event_name`` (Pi's event), ``session_id``, ``transcript_path`` (the session
JSONL), ``leaf_id``, ``cwd`` and, per event, ``prompt`` or Pi's ``reason``. This module turns
Pi's words into the ones the handlers read: ``reason`` becomes SessionStart's ``source``
(``shared/spec/hosts-more.md`` §2.3) and PreCompact's ``trigger``.
"""

from __future__ import annotations

from ovhooks.hosts.claude import REPLY_EVENTS
from ovhooks.hosts.spec import HostSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Pi's session_start reasons -> the sources the SessionStart handler knows. ``new`` is a new
# session in the same window (Codex/Claude ``clear``); ``reload`` re-reads the same session.
_SOURCES = {
    "startup": "startup",
    "new": "clear",
    "resume": "resume",
    "reload": "resume",
    "fork": "startup",
}
_TRIGGERS = {"manual": "manual", "threshold": "auto", "overflow": "auto"}
# Pi's file tools -> the Claude-named tools and fields the viking:// guard (PreToolUse) reads.
_TOOLS = {
    "read": ("Read", {"path": "file_path"}),
    "grep": ("Grep", {"path": "path", "pattern": "pattern", "glob": "glob"}),
    "find": ("Glob", {"path": "path", "pattern": "pattern"}),
    "ls": ("Glob", {"path": "path"}),
}


def tool_call(tool: object, tool_input: object) -> tuple[str, dict[str, Any]]:
    """A host's file tool call as the guard reads it: ``("", {})`` for any other tool."""
    entry = _TOOLS.get(tool) if isinstance(tool, str) else None
    if entry is None or not isinstance(tool_input, dict):
        return "", {}
    name, fields = entry
    return name, {
        ours: tool_input[theirs] for theirs, ours in fields.items() if theirs in tool_input
    }


def adapt(event_name: str, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """``payload`` with Pi's fields renamed for the handlers; other fields are kept."""
    reason = payload.get("reason")
    reason = reason if isinstance(reason, str) else ""
    out = dict(payload)
    if event_name == "SessionStart":
        out["source"] = _SOURCES.get(reason, "startup")
    elif event_name == "PreCompact":
        out["trigger"] = _TRIGGERS.get(reason, "auto")
    elif event_name == "SessionEnd":
        out["reason"] = reason or "quit"
    elif event_name == "PreToolUse":
        out["tool_name"], out["tool_input"] = tool_call(payload.get("tool"), payload.get("input"))
    return out


# Pi's event names, as the shim sends them in ``hook_event_name``.
_EVENTS = (
    ("session_start", "session-start", None),
    ("before_agent_start", "user-prompt-submit", None),
    ("agent_end", "stop", None),
    ("session_before_compact", "pre-compact", None),
    ("session_shutdown", "session-end", None),
    ("tool_call", "pre-tool-use", "read|grep|find|ls"),
)

SPEC = HostSpec(
    name="pi",
    label="Pi",
    session_prefix="pi-",  # the prefix OpenViking's own Pi extension uses
    # the events the shim maps onto ovhooks' hooks, with the shim's own bound on each process
    events=_EVENTS,
    config_dir=("PI_CODING_AGENT_DIR", "", ".pi/agent"),
    hooks_file=("extensions/ovhooks.ts", ".pi/extensions/ovhooks.ts"),
    install="shim",
    shim="pi_extension.ts",
    rivals=("extensions/openviking",),
    rival_configs=("settings.json",),
    adapt=adapt,
    reply_events=REPLY_EVENTS,
    detect_events=frozenset(event for event, *_ in _EVENTS if event != "tool_call"),
    next_steps=(
        "Start a new Pi session (Pi loads extensions at start-up; `/reload` reloads them).",
        "Then run `ovhooks doctor` to check the memory store and the extension.",
    ),
    activity=("sessions", ".jsonl", 1),  # sessions/--<cwd>--/<time>_<id>.jsonl
)
