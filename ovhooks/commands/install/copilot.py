"""Installing on GitHub Copilot CLI: ovhooks' hooks are a file of its own,
``$COPILOT_HOME/hooks/ovhooks.json`` (Copilot reads every ``hooks/*.json``; project scope:
``.github/hooks/ovhooks.json``, which ``copilot -p`` loads only in a trusted folder), so
Copilot's own ``settings.json``, which it rewrites itself, is never touched. The memory tools
go into ``$COPILOT_HOME/mcp-config.json`` (user scope).

Keys are Claude-style (PascalCase) with no matcher: Copilot refuses an empty matcher on
PreCompact and with it every hook of the file, saying so only in its log.
"""

from __future__ import annotations

from ovhooks.commands.install import wave4_common

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def next_steps(scope: str, *, trust: bool) -> list[str]:
    steps = ["Copilot reads hooks when a session starts: the next `copilot` run uses them."]
    if scope == "project":
        steps.append("`copilot -p` loads a repository's hooks only in a trusted folder.")
    return [
        *steps,
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
    return wave4_common.install(
        "copilot", path, exe, environ, dry_run=dry_run, trust=trust, mcp=mcp
    )


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    return wave4_common.uninstall("copilot", path, scope, environ, dry_run=dry_run)
