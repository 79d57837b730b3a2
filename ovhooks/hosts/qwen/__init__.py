"""Qwen Code's dialect (0.24.4, ``shared/spec/hosts-wave4.md`` §2).

Qwen Code runs Claude-style command hooks from ``~/.qwen/settings.json`` (timeouts in
milliseconds) and sends Claude Code's payload fields; replies are Claude Code's
``hookSpecificOutput.additionalContext``. What differs is said here:

- **exit status 2 on UserPromptSubmit blocks the turn** (no model request): ovhooks always
  exits 0, and the fail-open launcher turns any other status into 0 as well;
- SessionStart's context is appended to the **system prompt**, which would then change with
  every recall of a continued session (``-c``) and defeat the provider's prompt cache: the
  block is held for the session's first UserPromptSubmit instead, which puts it after the
  prompt (``hosts/gemini.py`` holds it the same way);
- UserPromptSubmit also fires for tool-result and hook continuations (its ``prompt`` is then
  not the user's text, and ``submitted_prompt`` is absent); those are answered with nothing;
- SessionEnd does not fire in ``-p`` mode: each Stop's capture is what a headless run keeps.
"""

from __future__ import annotations

from ovhooks.hosts.spec import CLAUDE_STYLE_EVENTS, HostSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def normalize_payload(payload: Mapping[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Qwen's payload as the events read it: a UserPromptSubmit without ``submitted_prompt``
    is a tool-result or hook continuation (its ``prompt`` is empty or not the user's), so its
    prompt is emptied and nothing is recalled for it."""
    out = dict(payload)
    if out.get("hook_event_name") == "UserPromptSubmit" and "submitted_prompt" not in out:
        out["prompt"] = ""
    return out


def adapt(event_name: str, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """The registry's payload reader: ``normalize_payload`` for every event."""
    return normalize_payload(payload, environ)


# Claude-style keys, timeouts in milliseconds. SessionEnd is registered for interactive
# sessions (it does not fire in -p mode).
SPEC = HostSpec(
    name="qwen",
    label="Qwen Code",
    session_prefix="qw-",
    events=CLAUDE_STYLE_EVENTS,
    config_dir=("", "", ".qwen"),
    hooks_file=("settings.json", ".qwen/settings.json"),
    adapt=adapt,
    reply_events=frozenset({"SessionStart", "UserPromptSubmit"}),
    detect_env=("QWEN_CODE_CLI", "QWEN_PROJECT_DIR"),
    hooks_timeout_ms=True,
    hooks_off=("disableAllHooks", True),
    next_steps=(
        "Start Qwen Code (it reads hooks at start-up; `--safe-mode` turns them off).",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ),
    mcp="mcp_servers",
    mcp_file="settings.json",
    activity=("projects", ".jsonl", 2),  # projects/<cwd>/chats/<id>.jsonl
    held_start_context="ovhooks.hosts.gemini",
)
