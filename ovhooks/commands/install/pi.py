"""Installing on the Pi coding agent: ovhooks' extension file in Pi's extensions folder.

Pi auto-loads ``~/.pi/agent/extensions/*.ts`` (``$PI_CODING_AGENT_DIR/extensions``) and, for a
project, ``<project>/.pi/extensions/*.ts``, with jiti: no build and no npm install. The shim
(``ovhooks/hosts/shims/pi_extension.ts``) starts ovhooks for Pi's memory events; the path
comes from ``hostconfig.hooks_file``.
"""

from __future__ import annotations

from ovhooks.commands.install.shim_file import install_shim, render, template, uninstall_shim

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SHIM = "pi_extension.ts"


def next_steps(scope: str, *, trust: bool) -> list[str]:
    return [
        "Start a new Pi session (Pi loads extensions at start-up; `/reload` reloads them).",
        "Then run `ovhooks doctor` to check the memory store and the extension.",
    ]


def install(
    path: str, exe: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool, trust: bool
) -> dict[str, Any]:
    if trust:
        from ovhooks.commands.errors import CommandError, ExitCode

        raise CommandError(
            "--trust is for Codex (Pi has no hook trust step)",
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
