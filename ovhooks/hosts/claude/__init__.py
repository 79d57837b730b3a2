"""Claude Code: command hooks in ``settings.json`` (``$CLAUDE_CONFIG_DIR``, default
``~/.claude``; ``<project>/.claude/settings.json``); no feature flag, no trust step.

Its reply shape (``hosts/reply.render_hook_output``) is the one the Pi and OpenCode shims read.
"""

from __future__ import annotations

from ovhooks.hosts.spec import HostSpec

# The events whose reply may carry hookSpecificOutput in Claude Code's shape.
REPLY_EVENTS = frozenset(
    {"SessionStart", "UserPromptSubmit", "SubagentStart", "PreToolUse", "PostToolUse"}
)

SPEC = HostSpec(
    name="claude",
    label="Claude Code",
    session_prefix="cc-",
    events=(
        ("SessionStart", "session-start", None),
        ("UserPromptSubmit", "user-prompt-submit", None),
        ("PreToolUse", "pre-tool-use", "Read|Glob|Grep"),
        ("PostToolUse", "post-tool-use", "Read"),
        ("Stop", "stop", None),
        ("SubagentStart", "subagent-start", None),
        ("SubagentStop", "subagent-stop", None),
        ("PreCompact", "pre-compact", None),
        ("PostCompact", "post-compact", None),
        ("SessionEnd", "session-end", None),
        ("DirectoryAdded", "directory-added", None),
    ),
    config_dir=("CLAUDE_CONFIG_DIR", "", ".claude"),
    hooks_file=("settings.json", ".claude/settings.json"),
    reply_events=REPLY_EVENTS,
    detect_env=("CLAUDECODE", "CLAUDE_PROJECT_DIR"),
    detect_fields=("prompt_id",),
    detect_path="/projects/",
    next_steps=(
        "Restart Claude Code (it reads hooks at start-up); `/hooks` lists them.",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ),
    mcp="claude_json",
    activity=("projects", ".jsonl", 1),
    reply_in_stop=True,
    context_unit="chars",
)
