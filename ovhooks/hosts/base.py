"""Host payloads in, host replies out: the one place that knows each host's dialect.

``decode_payload`` turns whatever arrived on stdin into a payload object and ``Event`` reads
its fields, neither raising: a payload that is not an object, a field of the wrong type or
over its length bound, become empty values. ``detect_host`` names the host when ``--host``
was not given. ``render_reply`` turns a ``Reply`` into exactly one JSON object that the host
accepts for that event.
"""

from __future__ import annotations

import json

# ``Reply`` and ``cap_context`` live below every host's module (hosts/reply.py); the names
# stay importable from here, where the handlers have always found them.
from ovhooks.hosts.reply import MAX_CONTEXT_CHARS, Reply, cap_context

__all__ = [
    "EVENT_NAMES",
    "HOSTS",
    "MAX_CONTEXT_CHARS",
    "MAX_ID_CHARS",
    "MAX_PATH_CHARS",
    "SHIM_HOSTS",
    "WAVE4_HOSTS",
    "Event",
    "Reply",
    "cap_context",
    "decode_payload",
    "detect_host",
    "render_reply",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# Codex validates strictly: these events accept only the common fields (interface §1).
_COMMON_ONLY = frozenset(
    {"Stop", "PreCompact", "PostCompact", "SessionEnd", "SubagentStop", "DirectoryAdded"}
)
_CODEX_SPECIFIC = frozenset({"SessionStart", "UserPromptSubmit"})
_CLAUDE_SPECIFIC = frozenset(
    {"SessionStart", "UserPromptSubmit", "SubagentStart", "PreToolUse", "PostToolUse"}
)

# Every host ovhooks serves (``--host``). Pi and OpenCode reach ovhooks through the shims in
# ``hosts/shims/`` and answer in Claude Code's reply shape (the shims read it).
# Gemini CLI: command hooks in settings.json, its own dialect (hosts/gemini.py).
HOSTS = ("codex", "claude", "pi", "opencode", "gemini", "copilot", "qwen", "droid")
SHIM_HOSTS = frozenset({"pi", "opencode"})
# What people call each host: help texts and the README name every host by these words
# (tests/test_host_names.py holds them to HOSTS).
PRODUCT_NAMES = {
    "codex": "Codex CLI",
    "claude": "Claude Code",
    "pi": "Pi",
    "opencode": "OpenCode",
    "gemini": "Gemini CLI",
    "copilot": "GitHub Copilot CLI",
    "qwen": "Qwen Code",
    "droid": "Factory Droid",
}
# Copilot CLI, Qwen Code, Factory Droid: Claude-style command hooks (hosts/<host>.py); their
# transcripts are read by transcripts/<host>.py.
WAVE4_HOSTS = frozenset({"copilot", "qwen", "droid"})

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
    if len(value) > _BOUNDED.get(key, len(value)):
        return ""
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


# The event names the Pi and OpenCode shims send as ``hook_event_name``.
_PI_EVENTS = frozenset(
    {
        "session_start",
        "before_agent_start",
        "agent_end",
        "session_before_compact",
        "session_shutdown",
    }
)
_OPENCODE_EVENTS = frozenset(
    {
        "chat.message",
        "session.idle",
        "experimental.session.compacting",
        "session.deleted",
        "dispose",
    }
)


def detect_host(payload: Mapping[str, Any], environ: Mapping[str, str]) -> str:
    """Which host sent this, when ``--host`` was not given (the shipped configs always give it)."""
    # Gemini CLI sets CLAUDE_PROJECT_DIR too (for Claude-style hooks): it is checked first.
    if environ.get("GEMINI_SESSION_ID") or environ.get("GEMINI_PROJECT_DIR"):
        return "gemini"
    # These three set CLAUDE_PROJECT_DIR too (for Claude-style hooks): checked before it.
    if environ.get("COPILOT_CLI") or environ.get("COPILOT_PROJECT_DIR"):
        return "copilot"
    if environ.get("QWEN_CODE_CLI") or environ.get("QWEN_PROJECT_DIR"):
        return "qwen"
    if environ.get("FACTORY_PROJECT_DIR") or environ.get("DROID_PROJECT_DIR"):
        return "droid"
    event = _str(payload, "hook_event_name")
    if event in _PI_EVENTS:
        return "pi"
    if event in _OPENCODE_EVENTS:
        return "opencode"
    if environ.get("CLAUDECODE") or environ.get("CLAUDE_PROJECT_DIR"):
        return "claude"
    if environ.get("CODEX_HOME") or environ.get("CODEX_MANAGED_BY_NPM"):
        return "codex"
    if "prompt_id" in payload or "/projects/" in _str(payload, "transcript_path"):
        return "claude"
    return "codex"


def render_reply(host: str, event_name: str, reply: Reply) -> str:
    """Exactly one JSON object, valid for ``host`` and ``event_name``."""
    if host == "gemini":
        from ovhooks.hosts.gemini import render_reply as render_gemini

        return render_gemini(event_name, reply)
    if host == "copilot":  # a top-level additionalContext, nothing else (hosts/copilot.py)
        from ovhooks.hosts.copilot import render_reply as render_copilot

        return render_copilot(event_name, reply)
    out: dict[str, Any] = {}
    specific_ok = (_CODEX_SPECIFIC if host == "codex" else _CLAUDE_SPECIFIC).__contains__(
        event_name
    )
    if specific_ok:
        hook_specific: dict[str, Any] = {}
        if reply.context:
            hook_specific["additionalContext"] = cap_context(reply.context)
        hook_specific.update(reply.specific)
        if hook_specific:
            out["hookSpecificOutput"] = {"hookEventName": event_name, **hook_specific}
    if reply.system_message:
        out["systemMessage"] = reply.system_message
    if event_name in _COMMON_ONLY:
        out = {k: v for k, v in out.items() if k in ("systemMessage",)}
    return json.dumps(out, ensure_ascii=False)
