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
    return out
