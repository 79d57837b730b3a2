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
    if trust:
        from ovhooks.commands.errors import CommandError, ExitCode

        raise CommandError(
            "--trust is for Codex (Claude Code has no hook trust step)",
            fix="drop --trust",
            code=ExitCode.USAGE,
            slug="usage",
        )
    done: dict[str, Any] = {
        "hooks_file": install_hooks_file(path, "claude", exe, dry_run=dry_run),
        "config_toml": None,
    }
    if mcp:  # after the hooks: their backup of settings.json is the file before any install
        from ovhooks.commands.install.mcp_files import register_claude

        done["mcp"] = register_claude(path, environ, exe, dry_run=dry_run)
    return done


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    """The memory tools first (user scope), so that the hooks step finds settings.json as
    its backup left it and restores those bytes."""
    done: dict[str, Any] = {"mcp": [], "config_toml": None}
    if scope == "user":
        from ovhooks.commands.install.mcp_files import unregister_claude

        done["mcp"] = unregister_claude(path, environ, dry_run=dry_run)
    done["hooks_file"] = uninstall_hooks_file(path, dry_run=dry_run)
    return done
