"""``ovhooks mcp`` registered in a host's JSON config, and exactly that taken back.

Two shapes (``HostSpec.mcp``):

- ``mcp_servers`` (Gemini CLI's ``settings.json``): ``mcpServers.ovhooks = {command, args}`` and
  the host's own fields (``HostSpec.mcp_entry``; Gemini's ``trust`` lets the tools run without
  a confirmation, which ``gemini -p`` cannot ask).
- ``opencode_mcp`` (OpenCode's ``opencode.json``): ``mcp.ovhooks = {type: "local", command:
  [argv], enabled: true}``.

An entry of that name is install's when it runs ``ovhooks mcp`` (``is_ours``); one that runs
anything else is the user's and stays. The file's first state is kept as ``<file>.ovhooks.bak``
unless the hooks step already kept it (Gemini's hooks share the file), and uninstall puts
those bytes back when nothing else changed, removes a file install created, or else takes out
the entry alone.
"""

from __future__ import annotations

import os
import shlex

from ovhooks.commands import hostconfig
from ovhooks.commands.install.files import (
    BACKUP_SUFFIX,
    backup_doc,
    file_mode,
    read_json_doc,
    read_text,
    remove_file,
    write_file,
)
from ovhooks.commands.install.hooks_json import render_like, same_but_empty_tables
from ovhooks.commands.install.mcp_config import SERVER, server_argv
from ovhooks.fsutil import ensure_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# kind -> the top-level key that holds the servers
_TABLES = {"mcp_servers": "mcpServers", "opencode_mcp": "mcp"}


def entry(kind: str, exe: str, extra: Mapping[str, object] | None = None) -> dict[str, Any]:
    """The server entry for ``kind``, running ``<exe> mcp``; ``extra``: the host's own fields
    (``HostSpec.mcp_entry``: Gemini CLI's ``trust``)."""
    argv = server_argv(exe)
    if kind == "opencode_mcp":
        return {"type": "local", "command": argv, "enabled": True, **(extra or {})}
    return {"command": argv[0], "args": argv[1:], **(extra or {})}


def entry_argv(value: object) -> list[str]:
    """The argv an entry runs (either shape), or ``[]``."""
    if not isinstance(value, dict):
        return []
    command, args = value.get("command"), value.get("args")
    words = command if isinstance(command, list) else [command]
    words = words + (args if isinstance(args, list) else [])
    return [w for w in words if isinstance(w, str)]


def is_ours(value: object) -> bool:
    """An entry that runs ``ovhooks mcp`` (install's, whichever executable it names)."""
    argv = entry_argv(value)
    if not argv or argv[-1] != "mcp":
        return False
    return hostconfig.is_ovhooks_command(shlex.join([*argv[:-1], "stop"]))


def server_entry(kind: str, doc: dict[str, Any]) -> object:
    table = doc.get(_TABLES[kind])
    return table.get(SERVER) if isinstance(table, dict) else None


def not_a_table(doc: dict[str, Any], key: str) -> dict[str, str] | None:
    """A manual step when ``doc[key]`` is there but not an object: install never replaces
    it (uninstall would then take the user's key away with its own entry)."""
    if isinstance(doc.get(key, {}), dict):
        return None
    return {
        "action": "manual",
        "detail": f"{key} here is not an object; left as it is",
        "fix": f"make {key} an object ({{}}) or remove it, then install again",
    }


def with_server(
    kind: str, doc: dict[str, Any], exe: str, extra: Mapping[str, object] | None = None
) -> dict[str, Any]:
    key = _TABLES[kind]
    table = doc.get(key)
    table = dict(table) if isinstance(table, dict) else {}
    table[SERVER] = entry(kind, exe, extra)
    new = dict(doc)
    new[key] = table
    return new


def without_server(kind: str, doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without install's entry (the table goes too when it is left empty)."""
    key = _TABLES[kind]
    table = doc.get(key)
    if not isinstance(table, dict) or not is_ours(table.get(SERVER)):
        return doc
    rest = {k: v for k, v in table.items() if k != SERVER}
    new = {k: (rest if k == key else v) for k, v in doc.items()}
    if not rest:
        del new[key]
    return new


def register_server(
    kind: str,
    path: str,
    exe: str,
    label: str,
    *,
    keep_backup: bool,
    dry_run: bool,
    extra: Mapping[str, object] | None = None,
) -> dict[str, Any]:
    """Install's entry in ``path``: ``{path, action, detail}`` like the other steps;
    ``keep_backup``: the hooks step, which ran first on the same file, kept its first state."""
    doc, text = read_json_doc(path)
    found = server_entry(kind, doc)
    done: dict[str, Any] = {"path": path, "action": "unchanged", "backup": None}
    refused = not_a_table(doc, _TABLES[kind])
    if refused is not None:
        return {**done, **refused}
    if found is not None and not is_ours(found):
        done["action"] = "manual"
        done["detail"] = f"a server named {SERVER} of your own is there; left as it is"
        done["fix"] = f"keep it if it runs `{exe} mcp`, or remove it and install again"
        return done
    new = with_server(kind, doc, exe, extra)
    if new == doc and text is not None:
        done["detail"] = "memory tools already registered"
        return done
    done["action"] = "created" if text is None else "updated"
    done["detail"] = f"{_TABLES[kind]}.{SERVER} (`ovhooks mcp`, {label}'s memory tools)"
    if not dry_run:
        backup = path + BACKUP_SUFFIX
        if text is not None and not keep_backup and not os.path.exists(backup):  # first state
            done["backup"] = backup
            write_file(backup, text, mode=0o600)
        ensure_dir(os.path.dirname(os.path.abspath(path)), private=False)  # new folders 0700
        write_file(path, render_like(new, text), mode=file_mode(path))
    return done


def unregister_server(
    kind: str, path: str, *, keep_backup: bool, dry_run: bool
) -> list[dict[str, Any]]:
    """Install's entry out of ``path``; ``keep_backup``: the hooks step, which runs next on the
    same file, restores (and removes) the backup itself."""
    doc, text = read_json_doc(path)
    new = without_server(kind, doc)
    if new == doc:
        return []
    backup_path = path + BACKUP_SUFFIX
    backup = None if keep_backup else read_text(backup_path)
    try:
        restorable = backup is not None and same_but_empty_tables(backup_doc(backup), new)
    except ValueError:
        restorable = False
    gone = not keep_backup and backup is None and not new
    action = "restored" if restorable else "removed" if gone else "updated"
    if not dry_run:
        if restorable and backup is not None:
            write_file(path, backup, mode=file_mode(path))
        elif action == "removed":
            remove_file(path)
        else:
            write_file(path, render_like(new, text), mode=file_mode(path))
        if not keep_backup:
            remove_file(backup_path)
    detail = f"{_TABLES[kind]}.{SERVER} removed"
    return [{"path": path, "action": action, "detail": detail}]
