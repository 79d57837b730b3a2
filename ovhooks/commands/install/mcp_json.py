"""``ovhooks mcp`` as an ``mcpServers.ovhooks`` entry of a host's JSON file, and taken back.

Copilot CLI (``$COPILOT_HOME/mcp-config.json``), Qwen Code (``~/.qwen/settings.json``, beside
the hooks) and Factory Droid (``~/.factory/mcp.json``) all keep their servers under
``mcpServers``; only the entry's shape differs (``entry``). Install keeps a private copy of
what the file was (``<file>.ovhooks-mcp.bak``, distinct from the hooks step's backup of the
same file); uninstall writes those bytes back when nothing else changed, removes a file that
only ever held ovhooks' entry, and otherwise takes out just that entry. An entry of the same
name that does not run ``ovhooks mcp`` is the user's: left alone, and said so.
"""

from __future__ import annotations

import json
import os

from ovhooks.commands.install import mcp_config
from ovhooks.commands.install.files import (
    file_mode,
    read_json_doc,
    read_text,
    remove_file,
    write_file,
)
from ovhooks.commands.install.hooks_json import render_like

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

BACKUP_SUFFIX = ".ovhooks-mcp.bak"
SERVER = mcp_config.SERVER


def server_file(host: str, environ: Mapping[str, str]) -> str:
    """Where ``host`` keeps its (user) MCP servers."""
    if host == "copilot":
        from ovhooks.hosts.copilot import copilot_home

        return os.path.join(copilot_home(environ), "mcp-config.json")
    if host == "qwen":
        from ovhooks.hosts.qwen import qwen_dir

        return os.path.join(qwen_dir(environ), "settings.json")
    from ovhooks.hosts.droid import factory_dir

    return os.path.join(factory_dir(environ), "mcp.json")


def entry(host: str, exe: str) -> dict[str, Any]:
    """The server entry in ``host``'s own shape."""
    argv = mcp_config.server_argv(exe)
    if host == "copilot":
        return {"type": "local", "command": argv[0], "args": argv[1:], "tools": ["*"]}
    if host == "droid":
        return {"type": "stdio", "command": argv[0], "args": argv[1:], "disabled": False}
    return {"command": argv[0], "args": argv[1:]}


def runs_ovhooks_mcp(value: object) -> bool:
    """True for an entry whose command line is ``… ovhooks mcp`` (or ``-m ovhooks mcp``)."""
    if not isinstance(value, dict):
        return False
    args = value.get("args")
    argv = [value.get("command"), *(args if isinstance(args, list) else [])]
    if len(argv) < 2 or not all(isinstance(a, str) for a in argv) or argv[-1] != "mcp":
        return False
    runner = str(argv[-2]).replace("\\", "/").rsplit("/", 1)[-1].lower()
    return runner in ("ovhooks", "ovhooks.exe")


def _servers(doc: dict[str, Any]) -> dict[str, Any]:
    servers = doc.get("mcpServers")
    return dict(servers) if isinstance(servers, dict) else {}


def with_server(doc: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with ``mcpServers.ovhooks`` set (a new key goes last; key order kept)."""
    servers = {**_servers(doc), SERVER: value}
    new = {k: (servers if k == "mcpServers" else v) for k, v in doc.items()}
    new.setdefault("mcpServers", servers)
    return new


def without_server(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without ovhooks' entry; an ``mcpServers`` it leaves empty goes too."""
    servers = _servers(doc)
    if not runs_ovhooks_mcp(servers.get(SERVER)):
        return doc
    del servers[SERVER]
    new = {k: (servers if k == "mcpServers" else v) for k, v in doc.items()}
    return new if servers else {k: v for k, v in new.items() if k != "mcpServers"}


def add_server(path: str, host: str, exe: str, *, dry_run: bool) -> dict[str, Any]:
    """Add the entry to ``path``; ``{path, action, detail, backup}`` like the other steps."""
    doc, text = read_json_doc(path)
    current = _servers(doc).get(SERVER)
    if current is not None and not runs_ovhooks_mcp(current):
        return {
            "path": path,
            "action": "manual",
            "detail": "an mcpServers.ovhooks of your own is there; left as it is",
            "fix": f"keep it if it runs `{exe} mcp`; otherwise remove it and install again",
            "backup": None,
        }
    new = with_server(doc, entry(host, exe))
    if new == doc and text is not None:
        return {"path": path, "action": "unchanged", "detail": "memory tools already registered"}
    info = {
        "path": path,
        "action": "created" if text is None else "updated",
        "detail": "mcpServers.ovhooks (`ovhooks mcp`)",
        "backup": None,
    }
    if not dry_run:
        backup = path + BACKUP_SUFFIX
        if text is not None and not os.path.exists(backup):  # the state before any install
            write_file(backup, text, mode=0o600)
            info["backup"] = backup
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_file(path, render_like(new, text), mode=file_mode(path))
    return info


def remove_server(path: str, *, dry_run: bool) -> list[dict[str, Any]]:
    """Take the entry out of ``path``: its backup's bytes back when nothing else changed."""
    from ovhooks.commands.install.hooks_json import normalized

    doc, text = read_json_doc(path)
    new = without_server(doc)
    if text is None or new == doc:
        return []
    backup_path = path + BACKUP_SUFFIX
    backup = read_text(backup_path)
    try:
        restorable = backup is not None and normalized(json.loads(backup or "{}")) == new
    except ValueError:
        restorable = False
    action = "restored" if restorable else "removed" if backup is None and not new else "updated"
    if not dry_run:
        if restorable and backup is not None:
            write_file(path, backup, mode=file_mode(path))
        elif action == "removed":
            remove_file(path)
        else:
            write_file(path, render_like(new, text), mode=file_mode(path))
        remove_file(backup_path)
    return [{"path": path, "action": action, "detail": "mcpServers.ovhooks removed"}]
