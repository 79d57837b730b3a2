"""Host payloads in, host replies out, through each host's own package (hosts/registry.py).

``decode_payload`` turns whatever arrived on stdin into a payload object and ``Event`` reads
its fields, neither raising: a payload that is not an object, a field of the wrong type or
over its length bound, become empty values. ``detect_host`` names the host when ``--host``
was not given; ``adapt_payload`` renames a host's fields to the handlers' names. ``render_reply``
turns a ``Reply`` into exactly one JSON object that the host accepts for that event.
"""

from __future__ import annotations

import json

# ``Reply`` and ``cap_context`` live below every host's module (hosts/reply.py); the names
# stay importable from here, where the handlers have always found them.
from ovhooks.hosts import registry as _registry
from ovhooks.hosts.reply import MAX_CONTEXT_CHARS, Reply, cap_context, render_hook_output

__all__ = [
    "EVENT_NAMES",
    "HOSTS",
    "MAX_CONTEXT_CHARS",
    "MAX_ID_CHARS",
    "MAX_PATH_CHARS",
    "Event",
    "Reply",
    "adapt_payload",
    "cap_context",
    "decode_payload",
    "detect_host",
    "render_reply",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Every host ovhooks serves (``--host``): the registry's list (hosts/registry.py).
HOSTS = _registry.HOSTS

EVENT_NAMES = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "stop": "Stop",
    "pre-compact": "PreCompact",
    "post-compact": "PostCompact",
    "session-end": "SessionEnd",
    "subagent-start": "SubagentStart",
    "subagent-stop": "SubagentStop",
    "pre-tool-use": "PreToolUse",
    "post-tool-use": "PostToolUse",
    "directory-added": "DirectoryAdded",
}


# Longer values are not ids or paths a host sends: they are dropped (empty) in linear time,
# before any code walks them (a 5 MB cwd made the project-root walk quadratic).
MAX_ID_CHARS = 512
MAX_PATH_CHARS = 4096
_BOUNDED = {
    "session_id": MAX_ID_CHARS,
    "agent_id": MAX_ID_CHARS,
    "agent_type": MAX_ID_CHARS,
    "source": MAX_ID_CHARS,
    "trigger": MAX_ID_CHARS,
    "reason": MAX_ID_CHARS,
    "tool_name": MAX_ID_CHARS,
    "cwd": MAX_PATH_CHARS,
    "transcript_path": MAX_PATH_CHARS,
    "agent_transcript_path": MAX_PATH_CHARS,
}


def _str(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str):
        return ""
    if key in _BOUNDED and (len(value) > _BOUNDED[key] or "\x00" in value):
        return ""  # no path or id holds a NUL: every open() of it would raise
    return value


class Event:
    """One hook invocation, typed. Unknown or ill-typed fields are empty, never errors."""

    __slots__ = (
        "agent_id",
        "agent_transcript_path",
        "agent_type",
        "cwd",
        "directory",
        "host",
        "last_assistant_message",
        "name",
        "payload",
        "prompt",
        "reason",
        "session_id",
        "source",
        "tool_input",
        "tool_name",
        "tool_response",
        "transcript_path",
        "trigger",
    )

    def __init__(self, host: str, name: str, payload: Mapping[str, Any]) -> None:
        self.host = host
        self.name = name
        self.payload = dict(payload)
        self.session_id = _str(payload, "session_id").strip()
        self.transcript_path = _str(payload, "transcript_path")
        self.cwd = _str(payload, "cwd")
        self.directory = _str(payload, "directory")  # DirectoryAdded (Claude Code 2.1.219+)
        self.source = _str(payload, "source")
        self.prompt = _str(payload, "prompt")
        self.trigger = _str(payload, "trigger")
        self.reason = _str(payload, "reason")
        self.last_assistant_message = _str(payload, "last_assistant_message")
        self.agent_id = _str(payload, "agent_id")
        self.agent_type = _str(payload, "agent_type")
        self.agent_transcript_path = _str(payload, "agent_transcript_path")
        self.tool_name = _str(payload, "tool_name")
        tool_input = payload.get("tool_input")
        self.tool_input: dict[str, Any] = tool_input if isinstance(tool_input, dict) else {}
        self.tool_response: Any = payload.get("tool_response")


def decode_payload(raw: bytes) -> dict[str, Any]:
    """The payload object, or ``{}`` for empty, non-JSON, non-object or undecodable input."""
    if not raw or not raw.strip():
        return {}
    try:
        doc = json.loads(raw.decode("utf-8", "replace"))
        if isinstance(doc, dict) and (b"\\ud" in raw or b"\\uD" in raw):
            # Lone surrogates are valid JSON escapes but not text: they would raise
            # UnicodeEncodeError wherever a field is written out. Replaced by "?".
            text = json.dumps(doc, ensure_ascii=False).encode("utf-8", "replace")
            doc = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def detect_host(payload: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    """Which host sent this, when ``--host`` was not given (the shipped configs always give it)."""
    try:
        return _registry.detect(payload, environ)
    except Exception:  # a host package that fails to load must not cost the reply
        return _registry.HOSTS[0]


def adapt_payload(
    host: str, event_name: str, payload: dict[str, Any], environ: Mapping[str, str]
) -> dict[str, Any]:
    """``payload`` in the field names the handlers read (the host's own reader, if any)."""
    adapt = _registry.spec(host).adapt
    if adapt is None:
        return payload
    try:
        return adapt(event_name, payload, environ)
    except Exception:  # a reader's bug must not cost the reply
        return payload


def render_reply(host: str, event_name: str, reply: Reply) -> str:
    """Exactly one JSON object, valid for ``host`` and ``event_name``."""
    spec = _registry.spec(host)
    if spec.render is not None:
        return spec.render(event_name, reply)
    return render_hook_output(event_name, reply, spec.reply_events)
