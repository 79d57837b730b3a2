"""Installing on Gemini CLI: ovhooks' hooks go into the ``hooks`` object of Gemini's
``settings.json`` (every other setting, and the user's own hooks, untouched), each named
``ovhooks-<command>`` with its timeout in milliseconds.

Gemini has no hook trust step for user hooks, and hooks are on by default (0.28+); what can
still keep them from running is said, not changed: ``hooksConfig.enabled: false`` (the
user's choice) and folder trust (Gemini skips settings hooks in an untrusted folder).
``settings.json`` may hold comments, which Gemini allows and JSON does not: such a file is
refused with a clear error rather than rewritten without them.
"""

from __future__ import annotations

from ovhooks.commands.install.files import install_hooks_file, read_json_doc, uninstall_hooks_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def next_steps(scope: str, *, trust: bool) -> list[str]:
    return [
        "Start Gemini CLI in a folder you trust (it skips settings hooks in untrusted ones); "
        "`/hooks panel` lists them.",
        "Then run `ovhooks doctor` to check the memory store and the hooks.",
    ]


def _switched_off(doc: dict[str, Any]) -> str | None:
    config = doc.get("hooksConfig")
    if isinstance(config, dict) and config.get("enabled") is False:
        return "hooksConfig.enabled is false: set it to true, or Gemini CLI runs no hook at all"
    return None


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
            "--trust is for Codex (Gemini CLI has no trust step for user hooks)",
            fix="drop --trust",
            code=ExitCode.USAGE,
            slug="usage",
        )
    info = install_hooks_file(path, "gemini", exe, dry_run=dry_run)
    doc, _text = read_json_doc(path) if not dry_run else ({}, None)
    off = _switched_off(doc)
    if off:
        info["fix"] = off
    return {"hooks_file": info, "config_toml": None}


def uninstall(
    path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    return {"hooks_file": uninstall_hooks_file(path, dry_run=dry_run), "config_toml": None}
