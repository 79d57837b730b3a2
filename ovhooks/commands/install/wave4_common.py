"""What installing on Copilot CLI, Qwen Code and Factory Droid shares: the hooks file (the
shared edits of ``files``; Droid's top-level ``hooks.json`` through a wrapped document) and
the memory tools' ``mcpServers`` entry (``mcp_json``), in that order on install and the
reverse on uninstall, so each step finds the bytes its backup was taken from."""

from __future__ import annotations

import json

from ovhooks.commands import hostconfig
from ovhooks.commands.install import files, mcp_json
from ovhooks.commands.install.hooks_json import merge_hooks, normalized, remove_hooks, render_like

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def _refuse_trust(host: str) -> None:
    from ovhooks.commands.errors import CommandError, ExitCode

    raise CommandError(
        f"--trust is for Codex ({hostconfig.host_label(host)} has no hook trust step)",
        fix="drop --trust",
        code=ExitCode.USAGE,
        slug="usage",
    )


def switched_off(path: str, key: str) -> bool:
    """True when the host's file sets ``key`` (a kill switch for every hook) to true."""
    try:
        doc, _text = files.read_json_doc(path)
    except Exception:  # a file install just wrote: unreadable means not known
        return False
    return doc.get(key) is True


def install(
    host: str,
    path: str,
    exe: str,
    environ: Mapping[str, str],
    *,
    dry_run: bool,
    trust: bool,
    mcp: bool,
) -> dict[str, Any]:
    if trust:
        _refuse_trust(host)
    hooks = (
        install_top_level(path, host, exe, dry_run=dry_run)
        if host == "droid"
        else files.install_hooks_file(path, host, exe, dry_run=dry_run)
    )
    done: dict[str, Any] = {"hooks_file": hooks, "config_toml": None}
    if mcp:  # after the hooks: Qwen keeps both in one file, each step with its own backup
        done["mcp"] = [
            mcp_json.add_server(mcp_json.server_file(host, environ), host, exe, dry_run=dry_run)
        ]
    return done


def uninstall(
    host: str, path: str, scope: str, environ: Mapping[str, str], *, dry_run: bool
) -> dict[str, Any]:
    done: dict[str, Any] = {"mcp": [], "config_toml": None}
    if scope == "user":
        done["mcp"] = mcp_json.remove_server(mcp_json.server_file(host, environ), dry_run=dry_run)
    done["hooks_file"] = (
        uninstall_top_level(path, dry_run=dry_run)
        if host == "droid"
        else files.uninstall_hooks_file(path, dry_run=dry_run)
    )
    return done


# --- Droid's hooks.json: events at the top level ----------------------------------------------


def install_top_level(path: str, host: str, exe: str, *, dry_run: bool) -> dict[str, Any]:
    """``files.install_hooks_file`` for a document whose top level is the hooks table."""
    from ovhooks.fsutil import missing_dirs

    doc, text = files.read_json_doc(path)
    new = merge_hooks({"hooks": doc}, hostconfig.desired_groups(host, exe), path)["hooks"]
    if text is not None and new == doc:
        return {"path": path, "action": "unchanged", "backup": None}
    backup = None
    if not dry_run:
        import os

        created = missing_dirs(os.path.dirname(os.path.abspath(path)))
        if created:
            files.write_file(path + files.CREATED_DIRS_SUFFIX, json.dumps(created), mode=None)
        mode = files.file_mode(path)
        if text is not None:
            backup = path + files.BACKUP_SUFFIX
            files.write_file(backup, text, mode=0o600)  # a copy ovhooks made: private
        files.write_file(path, render_like(new, text), mode=mode)
    return {"path": path, "action": "created" if text is None else "updated", "backup": backup}


def uninstall_top_level(path: str, *, dry_run: bool) -> dict[str, Any]:
    """``files.uninstall_hooks_file`` for a document whose top level is the hooks table."""
    doc, text = files.read_json_doc(path)
    if text is None:
        return {"path": path, "action": "absent", "backup": None}
    new = remove_hooks({"hooks": doc}, path).get("hooks", {})
    if new == doc:
        return {"path": path, "action": "unchanged", "backup": None}
    backup_path = path + files.BACKUP_SUFFIX
    backup_text = files.read_text(backup_path)
    try:
        restored = backup_text is not None and normalized(
            {"hooks": json.loads(backup_text or "{}")}
        ) == normalized({"hooks": new})
    except ValueError:
        restored = False
    action = "restored" if restored else "removed" if backup_text is None and not new else "updated"
    if dry_run:
        return {"path": path, "action": action, "backup": None}
    mode = files.file_mode(path)
    if restored and backup_text is not None:
        files.write_file(path, backup_text, mode=mode)
        files.remove_file(backup_path)
        return {"path": path, "action": action, "backup": None}
    if action == "removed":
        files.remove_file(path)
        return {"path": path, "action": action, "backup": None}
    files.write_file(backup_path, text, mode=0o600)
    files.write_file(path, render_like(new, text), mode=mode)
    return {"path": path, "action": action, "backup": backup_path}
