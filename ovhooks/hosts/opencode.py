"""OpenCode's payloads, as its plugin shim sends them (``hosts/shims/opencode_plugin.js``).

OpenCode has no command hooks: the plugin starts ``ovhooks <hook> --host opencode`` for its
hooks and bus events and passes ``hook_event_name`` (OpenCode's hook or event), ``session_id``
(``ses_…``), ``cwd`` (the instance directory), ``prompt`` for a chat message, and the path of
OpenCode's SQLite store as ``transcript_path`` when the plugin can name it; otherwise the
default location is used (``shared/spec/hosts-more.md`` §3.4).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def default_db_path(environ: Mapping[str, str]) -> str:
    """``$OPENCODE_DB``, else ``$XDG_DATA_HOME/opencode/opencode.db`` (``~/.local/share``)."""
    explicit = environ.get("OPENCODE_DB", "").strip()
    if explicit:
        return explicit
    data = environ.get("XDG_DATA_HOME", "").strip() or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".local", "share"
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
