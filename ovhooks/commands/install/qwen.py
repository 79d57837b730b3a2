"""Installing on Qwen Code: ovhooks' hooks go into the ``hooks`` object of
``~/.qwen/settings.json`` (timeouts in milliseconds; every other setting, and the user's own
hooks, untouched; project scope: ``.qwen/settings.json``, read in trusted folders), and the
memory tools into its ``mcpServers`` (user scope).

What can still keep the hooks from running is said, not changed: ``disableAllHooks: true``
and ``--safe-mode``.
"""

from __future__ import annotations

from ovhooks.commands.install import wave4_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def next_steps(scope: str, *, trust: bool) -> list[str]:
    return [
        "Start Qwen Code (it reads hooks at start-up; `--safe-mode` turns them off).",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ]


def install(
    path: str,
    exe: str,
    environ: Mapping[str, str],
    cwd: str,
    *,
    dry_run: bool,
    trust: bool,
    mcp: bool = False,
) -> dict[str, Any]:
    done = wave4_common.install("qwen", path, exe, environ, dry_run=dry_run, trust=trust, mcp=mcp)
    if not dry_run and wave4_common.switched_off(path, "disableAllHooks"):
        done["hooks_file"]["fix"] = "disableAllHooks is true: Qwen Code runs no hook at all"
    return done


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    return wave4_common.uninstall("qwen", path, scope, environ, dry_run=dry_run)
