"""Installing on Factory Droid: ovhooks' hooks go into ``~/.factory/hooks.json``, which is
keyed by event **at the top level** (a ``{"hooks": …}`` wrapper makes Droid skip the whole
file as unknown events), so the shared hooks-file edits run on the document wrapped and the
result is written unwrapped. Project scope: ``.factory/hooks.json``. The memory tools go
into ``~/.factory/mcp.json`` (user scope).
"""

from __future__ import annotations

from ovhooks.commands.install import wave4_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def next_steps(scope: str, *, trust: bool) -> list[str]:
    return [
        "Droid reads hooks when a session starts; `/hooks` lists them.",
        "`droid exec` runs no UserPromptSubmit hook: recall reaches it at session start.",
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
    return wave4_common.install("droid", path, exe, environ, dry_run=dry_run, trust=trust, mcp=mcp)


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    return wave4_common.uninstall("droid", path, scope, environ, dry_run=dry_run)
