"""Installing a host shim file: Pi's extension and OpenCode's plugin (hosts/shims/).

Pi and OpenCode have no command hooks; they load a script from a folder. ``ovhooks install``
writes ovhooks' shim there, with the command that starts this ovhooks written into it. A file
of the same name that is not ovhooks' is kept as ``<file>.ovhooks.bak`` and comes back, byte
for byte, on uninstall; an ovhooks shim is recognised by its marker and only ever replaced
by a newer shim. Uninstall never removes a file that is not ovhooks'.
"""

from __future__ import annotations

import json
import os

from ovhooks.commands.install.files import (
    BACKUP_SUFFIX,
    CREATED_DIRS_SUFFIX,
    file_mode,
    read_bytes,
    remove_file,
    write_bytes,
    write_file,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The shim's command line (a JSON array of strings) carries this comment: it is how the file
# is recognised as ovhooks', and the line install rewrites.
MARKER = "// ovhooks-command (written by `ovhooks install"


def template(name: str) -> str:
    """The text of a shipped shim (``ovhooks/hosts/shims/<name>``)."""
    from importlib.resources import files

    return (files("ovhooks.hosts") / "shims" / name).read_text(encoding="utf-8")


def command_argv(executable: str) -> list[str]:
    """``hostconfig.hook_executable()``'s shell words as the argv the shim spawns."""
    import shlex

    try:
        words = shlex.split(executable, posix=os.name != "nt")
    except ValueError:
        words = [executable]
    return words or ["ovhooks"]


def render(template_text: str, executable: str) -> str:
    """The shim with ``executable`` written into its command line (the marked line)."""
    argv = json.dumps(command_argv(executable), ensure_ascii=False)
    out = []
    for line in template_text.splitlines(keepends=True):
        at = line.find(MARKER)
        if at >= 0 and " = " in line[:at]:
            declaration = line[: line.index(" = ") + 3]
            out.append(f"{declaration}{argv}; {line[at:]}")
        else:
            out.append(line)
    return "".join(out)


def is_ours(data: bytes | None) -> bool:
    return data is not None and MARKER.encode() in data


def install_shim(path: str, text: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Write the rendered shim ``text`` at ``path``; returns ``{path, action, backup}``."""
    old = read_bytes(path)
    if old == text.encode("utf-8"):
        return {"path": path, "action": "unchanged", "backup": None}
    backup = None
    action = "created" if old is None else ("updated" if is_ours(old) else "replaced")
    if action == "replaced":
        backup = path + BACKUP_SUFFIX
    if dry_run:
        return {"path": path, "action": action, "backup": backup}
    from ovhooks.fsutil import ensure_dir, missing_dirs

    created = missing_dirs(os.path.dirname(os.path.abspath(path)))
    if created:
        ensure_dir(os.path.dirname(os.path.abspath(path)), private=False)  # new folders 0700
        write_file(path + CREATED_DIRS_SUFFIX, json.dumps(created), mode=None)
    mode = file_mode(path)
    if backup is not None and old is not None:
        write_bytes(backup, old, mode=0o600)  # the user's file, kept private
    write_file(path, text, mode=mode)
    return {"path": path, "action": action, "backup": backup}


def uninstall_shim(path: str, *, dry_run: bool = False) -> dict[str, Any]:
    """Remove ovhooks' shim at ``path`` (restoring what install replaced)."""
    old = read_bytes(path)
    if old is None:
        return {"path": path, "action": "absent", "backup": None}
    if not is_ours(old):
        return {"path": path, "action": "unchanged", "backup": None, "detail": "not ovhooks'"}
    backup_path = path + BACKUP_SUFFIX
    backup = read_bytes(backup_path)
    action = "restored" if backup is not None else "removed"
    if dry_run:
        return {"path": path, "action": action, "backup": None}
    if backup is not None:
        write_bytes(path, backup, mode=file_mode(path))
        remove_file(backup_path)
    else:
        remove_file(path)
    return {"path": path, "action": action, "backup": None}
