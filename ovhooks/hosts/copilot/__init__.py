"""GitHub Copilot CLI's dialect (1.0.102, ``shared/spec/hosts-wave4.md`` §1).

ovhooks registers Claude-style (PascalCase) keys in ``$COPILOT_HOME/settings.json``, so the
payloads arrive snake_case (``session_id``, ``transcript_path``, ``hook_event_name``);
camelCase payloads (``sessionId``, ``transcriptPath``), which Copilot sends for its own
camelCase keys, are read the same way.

- Payloads: ``source: "new"`` is ovhooks' ``startup``. SessionStart and UserPromptSubmit carry
  no transcript path: it is ``$COPILOT_HOME/session-state/<id>/events.jsonl`` (the hook's
  environment carries ``COPILOT_HOME``).
- Replies: Copilot reads only a **top-level** ``additionalContext`` (a ``hookSpecificOutput``
  is ignored): on SessionStart it becomes its own user message before the prompt, on
  UserPromptSubmit a ``<system_reminder>`` after the prompt in the same message. Every other
  field is left out; a hook's exit status never blocks Copilot.
- SessionStart's block is held for the session's first UserPromptSubmit (as for Gemini and
  Qwen): a resumed session (``--continue``) puts the new process's block in place of the
  old one, the second message of every request, which changed the request prefix and so
  defeated the provider's prompt cache (seen with the real CLI).
"""

from __future__ import annotations

import json
import os

from ovhooks.hosts.spec import CLAUDE_STYLE_EVENTS, HostSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.hosts.reply import Reply

_CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})
_CAMEL = {
    "sessionId": "session_id",
    "transcriptPath": "transcript_path",
    "initialPrompt": "initial_prompt",
    "stopReason": "stop_reason",
    "hookEventName": "hook_event_name",
}
_SOURCES = {"new": "startup"}


def copilot_home(environ: Mapping[str, str]) -> str:
    """``$COPILOT_HOME`` when set, else ``~/.copilot``."""
    from ovhooks.settings.layout import home_dir

    custom = environ.get("COPILOT_HOME", "").strip()
    if custom:
        return os.path.abspath(os.path.expanduser(custom))
    return os.path.join(home_dir(environ), ".copilot")


def transcript_path(environ: Mapping[str, str], session_id: str) -> str:
    """Where Copilot writes a session's events (``session-state/<id>/events.jsonl``)."""
    from ovhooks.ids import safe_id

    return os.path.join(copilot_home(environ), "session-state", safe_id(session_id), "events.jsonl")


def normalize_payload(payload: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Copilot's payload with the fields the events read, under the names they read."""
    out = dict(payload)
    for camel, snake in _CAMEL.items():
        if camel in payload and snake not in payload:
            out[snake] = payload[camel]
    source = out.get("source")
    if isinstance(source, str) and source in _SOURCES:
        out["source"] = _SOURCES[source]
    session_id = out.get("session_id")
    if isinstance(session_id, str) and session_id.strip() and not out.get("transcript_path"):
        out["transcript_path"] = transcript_path(environ, session_id.strip())
    return out


def render_reply(event_name: str, reply: Reply) -> str:
    """Exactly one JSON object Copilot reads for ``event_name`` (ovhooks' name)."""
    from ovhooks.hosts.reply import cap_context

    out: dict[str, Any] = {}
    if event_name in _CONTEXT_EVENTS and reply.context:
        out["additionalContext"] = cap_context(reply.context)
    return json.dumps(out, ensure_ascii=False)


def adapt(event_name: str, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The registry's payload reader: ``normalize_payload`` for every event."""
    return normalize_payload(payload, environ)


# Claude-style (PascalCase) keys with no matcher: Copilot refuses an empty matcher on
# PreCompact and with it every hook of the file, saying so only in its log.
SPEC = HostSpec(
    name="copilot",
    label="GitHub Copilot CLI",
    session_prefix="cp-",
    events=CLAUDE_STYLE_EVENTS,
    config_dir=("COPILOT_HOME", "", ".copilot"),
    # a hooks file of ovhooks' own (Copilot reads every hooks/*.json), so Copilot's own
    # settings.json, which it rewrites itself, is never touched; `copilot -p` loads a
    # repository's .github/hooks only in a trusted folder
    hooks_file=("hooks/ovhooks.json", ".github/hooks/ovhooks.json"),
    adapt=adapt,
    render=render_reply,
    detect_env=("COPILOT_CLI", "COPILOT_PROJECT_DIR"),
    next_steps=(
        "Copilot reads hooks when a session starts: the next `copilot` run uses them "
        "(`copilot -p` loads a repository's hooks only in a trusted folder).",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ),
    mcp="mcp_servers",
    mcp_file="mcp-config.json",
    mcp_entry={"type": "local", "tools": ["*"]},
    activity=("session-state", ".jsonl", 1),  # session-state/<id>/events.jsonl
    held_start_context="ovhooks.hosts.gemini",
    stop_before_transcript=True,
)
