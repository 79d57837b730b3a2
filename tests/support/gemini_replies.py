"""What Gemini CLI accepts from a hook, and the recorded Gemini run replayed hook by hook.

Gemini parses stdout as JSON, and parses *stderr* when stdout is empty, so a reply is always
an object. ``decision: "deny"`` is honoured on every event that has it, and means something
ovhooks never wants outside the ``viking://`` guard (AfterAgent: retry the turn; BeforeAgent:
drop the prompt), as does ``continue: false`` (stop the agent).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.commands.hostconfig import HOOK_TABLE
from ovhooks.hosts.gemini import GEMINI_EVENTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gemini"
# Gemini's event name -> the ovhooks command its hooks run.
COMMANDS = {event: command for event, command, *_ in HOOK_TABLE["gemini"]}
_CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit", "PostToolUse"}


def assert_gemini_valid(event: str, reply: Any) -> None:
    """``reply`` (parsed) is one Gemini accepts for ``event`` (ovhooks' event name)."""
    assert isinstance(reply, dict), reply
    allowed = {"systemMessage"}
    if event in _CONTEXT_EVENTS:
        allowed.add("hookSpecificOutput")
    if event == "PreToolUse":
        allowed |= {"decision", "reason"}
    extra = set(reply) - allowed
    assert not extra, f"gemini {event}: fields not allowed: {extra}"
    if "decision" in reply:
        assert reply["decision"] == "deny" and isinstance(reply.get("reason"), str), reply
        assert reply["reason"], reply
    if "hookSpecificOutput" in reply:
        specific = reply["hookSpecificOutput"]
        assert specific["hookEventName"] == GEMINI_EVENTS[event], reply
        assert set(specific) <= {"hookEventName", "additionalContext"}, reply
        assert isinstance(specific["additionalContext"], str) and specific["additionalContext"]
        assert len(specific["additionalContext"]) < 10_000
    if "systemMessage" in reply:
        assert isinstance(reply["systemMessage"], str) and reply["systemMessage"]


def recorded_payloads() -> list[tuple[str, dict[str, Any]]]:
    """(ovhooks event name, payload) of every recorded Gemini payload variant."""
    events = {gemini: ours for ours, gemini in GEMINI_EVENTS.items()}
    out = []
    for path in sorted((FIXTURES / "hook-payloads").glob("*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        out.append((events[str(payload["hook_event_name"])], payload))
    return out


def hook_log() -> list[dict[str, Any]]:
    """Every hook call of the recorded run, in order: event, payload, transcript bytes."""
    text = (FIXTURES / "hook-log.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
