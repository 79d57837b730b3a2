"""Codex: command hooks in ``hooks.json`` (``$CODEX_HOME``, default ``~/.codex``), switched on
by a feature flag in ``config.toml`` and run only once trusted (``commands/install/codex.py``).

Codex validates replies strictly: only SessionStart and UserPromptSubmit take
``hookSpecificOutput``; every other event accepts the common fields alone (interface §1).
"""

from __future__ import annotations

from ovhooks.hosts.spec import HostSpec

SPEC = HostSpec(
    name="codex",
    label="Codex",
    session_prefix="cx-",
    events=(
        ("SessionStart", "session-start", "startup|resume|clear|compact"),
        ("UserPromptSubmit", "user-prompt-submit", None),
        ("Stop", "stop", None),
        ("PreCompact", "pre-compact", None),
        ("PostCompact", "post-compact", None),
        ("SessionEnd", "session-end", None),
    ),
    config_dir=("CODEX_HOME", "", ".codex"),
    hooks_file=("hooks.json", ".codex/hooks.json"),
    install="codex",
    reply_events=frozenset({"SessionStart", "UserPromptSubmit"}),
    detect_env=("CODEX_HOME", "CODEX_MANAGED_BY_NPM"),
    mcp="codex_toml",
    mcp_file="config.toml",
    doctor=("codex_feature_and_trust", "codex_native_memories"),
    activity=("sessions", ".jsonl", 3),
    commits_previous_on_start=True,
)
