"""OpenCode's payloads, as its plugin shim sends them (``hosts/shims/opencode_plugin.js``).

OpenCode has no command hooks: the plugin starts ``ovhooks <hook> --host opencode`` for its
hooks and bus events and passes ``hook_event_name`` (OpenCode's hook or event), ``session_id``
(``ses_…``), ``cwd`` (the instance directory), ``prompt`` for a chat message, and the path of
OpenCode's SQLite store as ``transcript_path`` when the plugin can name it; otherwise the
default location is used (``shared/spec/hosts-more.md`` §3.4).
"""

from __future__ import annotations

import os

from ovhooks.hosts.claude import REPLY_EVENTS
from ovhooks.hosts.spec import HostSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def default_db_path(environ: Mapping[str, str]) -> str:
    """``$OPENCODE_DB``, else ``$XDG_DATA_HOME/opencode/opencode.db`` (``~/.local/share``)."""
    from ovhooks.settings.layout import home_dir

    explicit = environ.get("OPENCODE_DB", "").strip()
    if explicit:
        return explicit
    data = environ.get("XDG_DATA_HOME", "").strip() or os.path.join(
        home_dir(environ), ".local", "share"
    )
    return os.path.join(data, "opencode", "opencode.db")


# OpenCode's file tools -> the Claude-named tools and fields the viking:// guard reads.
_TOOLS = {
    "read": ("Read", {"filePath": "file_path"}),
    "glob": ("Glob", {"path": "path", "pattern": "pattern"}),
    "grep": ("Grep", {"path": "path", "pattern": "pattern", "include": "glob"}),
    "list": ("Glob", {"path": "path"}),
}


def adapt(event_name: str, payload: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """``payload`` with OpenCode's fields named for the handlers; other fields are kept."""
    out = dict(payload)
    if not isinstance(out.get("transcript_path"), str) or not out.get("transcript_path"):
        out["transcript_path"] = default_db_path(environ)
    if event_name == "SessionStart":
        out["source"] = "startup"
    elif event_name == "PreCompact":
        out["trigger"] = "auto"
    elif event_name == "SessionEnd" and not isinstance(out.get("reason"), str):
        out["reason"] = "dispose"
    elif event_name == "PreToolUse":
        tool, args = payload.get("tool"), payload.get("input")
        entry = _TOOLS.get(tool) if isinstance(tool, str) else None
        if entry is not None and isinstance(args, dict):
            out["tool_name"] = entry[0]
            out["tool_input"] = {
                ours: args[theirs] for theirs, ours in entry[1].items() if theirs in args
            }
        else:
            out["tool_name"], out["tool_input"] = "", {}
    return out


def last_used(environ: Mapping[str, str]) -> float:
    """When OpenCode last wrote its store (its write-ahead log moves on every write)."""
    db = default_db_path(environ)
    times = []
    for path in (db, db + "-wal"):
        try:
            times.append(os.stat(path).st_mtime)
        except OSError:
            continue
    return max(times, default=0.0)


SPEC = HostSpec(
    name="opencode",
    label="OpenCode",
    session_prefix="oc-",  # the prefix OpenViking's own OpenCode plugin uses
    # the hooks and bus events the plugin maps onto ovhooks' hooks, with its bound on each
    events=(
        ("session.created", "session-start", None),
        ("chat.message", "user-prompt-submit", None),
        ("session.idle", "stop", None),
        ("experimental.session.compacting", "pre-compact", None),
        ("dispose", "session-end", None),
        ("tool.execute.before", "pre-tool-use", "read|glob|grep|list"),
    ),
    config_dir=("XDG_CONFIG_HOME", "opencode", ".config/opencode"),
    hooks_file=("plugins/ovhooks.js", ".opencode/plugins/ovhooks.js"),
    install="shim",
    shim="opencode_plugin.js",
    shim_noun="plugin",
    rivals=("plugins/openviking", "plugins/openviking.js"),
    rival_configs=("opencode.json", "opencode.jsonc"),
    adapt=adapt,
    reply_events=REPLY_EVENTS,
    detect_events=frozenset(
        {
            "chat.message",
            "session.idle",
            "experimental.session.compacting",
            "session.deleted",
            "dispose",
        }
    ),
    next_steps=(
        "Restart OpenCode (it loads plugins at start-up).",
        "Then run `ovhooks doctor` to check the memory store and the plugin.",
    ),
    mcp="opencode_mcp",
    mcp_file="opencode.json",
    last_used=last_used,
)
