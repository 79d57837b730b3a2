"""Installing on Claude Code: the hooks go into ``settings.json`` and nothing else changes
(Claude Code has no feature flag and no hook trust step)."""

from __future__ import annotations

from ovhooks.commands.install.files import install_hooks_file, uninstall_hooks_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def next_steps(scope: str, *, trust: bool) -> list[str]:
    return [
        "Restart Claude Code (it reads hooks at start-up); `/hooks` lists them.",
        "Then run `ovhooks doctor` to check the server, the key and the hooks.",
    ]


def install(
    path: str,
    exe: str,
    environ: Mapping[str, str],
    cwd: str,
    *,
    dry_run: bool,
    trust: bool,
) -> dict[str, Any]:
    if trust:
        from ovhooks.commands.errors import CommandError, ExitCode

        raise CommandError(
            "--trust is for Codex (Claude Code has no hook trust step)",
            fix="drop --trust",
            code=ExitCode.USAGE,
            slug="usage",
        )
    return {
        "hooks_file": install_hooks_file(path, "claude", exe, dry_run=dry_run),
        "config_toml": None,
    }


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    return {"hooks_file": uninstall_hooks_file(path, dry_run=dry_run), "config_toml": None}
