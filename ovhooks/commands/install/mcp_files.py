"""Registering ``ovhooks mcp`` in the hosts' files, and taking exactly that back.

The edits are ``mcp_config``'s; this module reads, writes (atomically, in the file's own
mode) and reports ``{path, action, detail}`` like the other install steps. It also keeps the
marker the session-start hook reads to decide whether to name the memory tools
(``context.mcp_marker``): one small file per host under the state directory.
"""

from __future__ import annotations

import os

from ovhooks.commands.install import mcp_config
from ovhooks.commands.install.files import (
    BACKUP_SUFFIX,
    backup_doc,
    file_mode,
    read_json_doc,
    read_text,
    remove_file,
    write_file,
)
from ovhooks.commands.install.hooks_json import render_like
from ovhooks.commands.install.mcp_json import not_a_table
from ovhooks.fsutil import ensure_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def _rules() -> list[str]:
    from ovhooks.commands.memory_ops import TOOL_NAMES

    return mcp_config.tool_rules(TOOL_NAMES)


def set_marker(environ: Mapping[str, str], host: str, *, registered: bool) -> None:
    """Tell the session-start hook whether ``host`` has the memory tools."""
    from ovhooks.commands.common import settings_from
    from ovhooks.context import mcp_marker

    state_dir = settings_from(environ).state_dir
    path = mcp_marker(state_dir, host)
    if not registered:
        remove_file(path)
        for folder in (os.path.dirname(path), state_dir):  # only when install left them empty
            try:
                os.rmdir(folder)
            except OSError:
                break
        return
    ensure_dir(os.path.dirname(path))  # private, every folder of it, as the hooks make them
    write_file(path, "registered by ovhooks install\n", mode=0o600)


# --- Codex ------------------------------------------------------------------------------------


def register_codex(path: str, exe: str, *, dry_run: bool) -> dict[str, Any]:
    """``[mcp_servers.ovhooks]`` appended to Codex's ``config.toml`` (after the feature step)."""
    text = read_text(path) or ""
    try:
        new, change = mcp_config.add_codex_server(text, exe)
    except ValueError as exc:
        fix = (
            f"keep your own [mcp_servers.ovhooks] if it runs `{exe} mcp`; otherwise remove it "
            "(`codex mcp remove ovhooks`) and run `ovhooks install codex` again"
            if isinstance(exc, mcp_config.ForeignEntryError)
            else f"add [mcp_servers.ovhooks] with command {mcp_config.server_argv(exe)} to "
            f"{path} by hand, or run `codex mcp add ovhooks -- {exe} mcp`"
        )
        return {
            "path": path,
            "action": "manual",
            "detail": f"could not register the memory tools ({exc})",
            "fix": fix,
            "backup": None,
        }
    if not change:
        return {"path": path, "action": "unchanged", "detail": "memory tools already registered"}
    if not dry_run:
        write_file(path, new, mode=file_mode(path))
    return {"path": path, "action": "updated", "detail": change, "backup": None}


def unregister_codex(path: str, *, dry_run: bool) -> list[dict[str, Any]]:
    """Only the server's block (when the hooks feature flag must stay for another scope)."""
    text = read_text(path)
    new, removed = mcp_config.drop_codex_server(text or "")
    if not removed:
        return []
    if not dry_run:
        write_file(path, new, mode=file_mode(path))
    return [{"path": path, "action": "updated", "detail": "[mcp_servers.ovhooks] removed"}]


# --- Claude Code ------------------------------------------------------------------------------


def _write_json(path: str, doc: dict[str, Any], text: str | None) -> None:
    write_file(path, render_like(doc, text), mode=file_mode(path))


def register_claude(
    settings_path: str, environ: Mapping[str, str], exe: str, *, dry_run: bool
) -> list[dict[str, Any]]:
    """The server in ``~/.claude.json`` (with a private backup of what was there), and the
    permission rules in the user's ``settings.json``."""
    server_path = mcp_config.claude_json_path(environ)
    doc, text = read_json_doc(server_path)
    new = mcp_config.with_claude_server(doc, exe)
    server: dict[str, Any] = {"path": server_path, "action": "unchanged", "backup": None}
    refused = not_a_table(doc, "mcpServers")
    if refused is not None:
        server.update(refused)
    elif mcp_config.foreign_claude_server(doc):  # the user's own: theirs to keep or remove
        server["action"] = "manual"
        server["detail"] = "an mcpServers.ovhooks of your own is there; left as it is"
        server["fix"] = (
            f"keep it if it runs `{exe} mcp`; otherwise `claude mcp remove ovhooks -s user` "
            "and run `ovhooks install claude` again"
        )
    elif new != doc or text is None:
        server["action"] = "created" if text is None else "updated"
        server["detail"] = "mcpServers.ovhooks (`ovhooks mcp`, always loaded)"
        if not dry_run:
            backup = server_path + BACKUP_SUFFIX
            if text is not None and not os.path.exists(backup):  # the state before any install
                server["backup"] = backup
                write_file(backup, text, mode=0o600)
            _write_json(server_path, new, text)
    settings, stext = read_json_doc(settings_path)
    rules: dict[str, Any] = {"path": settings_path, "action": "unchanged", "backup": None}
    permissions = settings.get("permissions", {})
    if not isinstance(permissions, dict) or not isinstance(permissions.get("allow", []), list):
        rules["action"] = "manual"  # replacing either would lose what the user put there
        rules["detail"] = "permissions.allow here is not a list; left as it is"
        rules["fix"] = "allow the memory tools in /permissions, or fix permissions.allow"
        return [server, rules]
    allowed = mcp_config.with_permissions(settings, _rules())
    if allowed != settings:
        rules["action"] = "updated" if stext is not None else "created"
        rules["detail"] = "permissions.allow: " + ", ".join(_rules())
        if not dry_run:
            _write_json(settings_path, allowed, stext)
    return [server, rules]


def unregister_claude(
    settings_path: str, environ: Mapping[str, str], *, dry_run: bool
) -> list[dict[str, Any]]:
    """Take the rules out of ``settings.json`` (before the hooks step restores its bytes) and
    the server out of ``~/.claude.json``: its backup's bytes back when nothing else changed."""

    from ovhooks.commands.install.hooks_json import same_but_empty_tables

    done = []
    settings, stext = read_json_doc(settings_path)
    kept = mcp_config.without_permissions(settings, _rules())
    if kept != settings:
        if not dry_run:
            _write_json(settings_path, kept, stext)
        done.append(
            {"path": settings_path, "action": "updated", "detail": "permission rules removed"}
        )
    server_path = mcp_config.claude_json_path(environ)
    doc, text = read_json_doc(server_path)
    new = mcp_config.without_claude_server(doc)
    if new == doc:
        return done
    backup_path = server_path + BACKUP_SUFFIX
    backup = read_text(backup_path)
    try:
        restorable = backup is not None and same_but_empty_tables(backup_doc(backup), new)
    except ValueError:
        restorable = False
    action = "restored" if restorable else "removed" if backup is None and not new else "updated"
    if not dry_run:
        if restorable and backup is not None:
            write_file(server_path, backup, mode=file_mode(server_path))
        elif action == "removed":
            remove_file(server_path)
        else:
            _write_json(server_path, new, text)
        remove_file(backup_path)
    done.append({"path": server_path, "action": action, "detail": "mcpServers.ovhooks removed"})
    return done
