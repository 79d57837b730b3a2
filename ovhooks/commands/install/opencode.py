"""Installing on OpenCode: ovhooks' plugin file in OpenCode's plugins folder.

OpenCode loads every file in ``~/.config/opencode/plugins/`` (``$XDG_CONFIG_HOME``) and, for a
project, ``<project>/.opencode/plugins/``, inside its own Bun process. The shim
(``ovhooks/hosts/shims/opencode_plugin.js``) uses only Node built-ins: no ``package.json`` is
written, so OpenCode never runs an install for it.
"""

from __future__ import annotations

from ovhooks.commands.install.shim_file import install_shim, render, template, uninstall_shim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SHIM = "opencode_plugin.js"


def next_steps(scope: str, *, trust: bool) -> list[str]:
    return [
        "Restart OpenCode (it loads plugins at start-up).",
        "Then run `ovhooks doctor` to check the memory store and the plugin.",
    ]


def install(
    path: str, exe: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool, trust: bool
) -> dict[str, Any]:
    if trust:
        from ovhooks.commands.errors import CommandError, ExitCode

        raise CommandError(
            "--trust is for Codex (OpenCode has no hook trust step)",
            fix="drop --trust",
            code=ExitCode.USAGE,
            slug="usage",
        )
    text = render(template(SHIM), exe)
    return {"hooks_file": install_shim(path, text, dry_run=dry_run), "config_toml": None}


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    return {"hooks_file": uninstall_shim(path, dry_run=dry_run), "config_toml": None}
