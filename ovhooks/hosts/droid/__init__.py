"""Factory Droid's dialect (0.225.2, ``shared/spec/hosts-wave4.md`` §3).

Droid runs Claude-style command hooks from ``~/.factory/hooks.json``, keyed by event at the
top level, and sends Claude Code's payload fields; replies are Claude Code's
(``hookSpecificOutput.additionalContext``: SessionStart's arrives as its own user message
after the system prompt). What differs is said here:

- ``Stop`` carries no ``last_assistant_message``: capture reads the reply from the session
  file (``transcripts/droid.py``), which Droid has written by then;
- ``droid exec`` fires SessionStart, Stop and SessionEnd (and the tool hooks) but **not**
  UserPromptSubmit, so headless recall is SessionStart's block only.
"""

from __future__ import annotations

from ovhooks.hosts.spec import CLAUDE_STYLE_EVENTS, HostSpec

# Claude-style keys at the top level of hooks.json (a {"hooks": ...} wrapper makes Droid skip
# the whole file as unknown events).
SPEC = HostSpec(
    name="droid",
    label="Factory Droid",
    session_prefix="fd-",
    events=CLAUDE_STYLE_EVENTS,
    config_dir=("", "", ".factory"),
    hooks_file=("hooks.json", ".factory/hooks.json"),
    reply_events=frozenset({"SessionStart", "UserPromptSubmit"}),
    detect_env=("FACTORY_PROJECT_DIR", "DROID_PROJECT_DIR"),
    hooks_at_top=True,
    next_steps=(
        "Droid reads hooks when a session starts; `/hooks` lists them.",
        "`droid exec` runs no UserPromptSubmit hook: recall reaches it at session start.",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ),
    mcp="mcp_servers",
    mcp_file="mcp.json",
    mcp_entry={"type": "stdio", "disabled": False},
    activity=("sessions", ".jsonl", 1),  # sessions/<cwd>/<id>.jsonl
)
