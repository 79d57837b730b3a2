"""Installing on a host, by the way it takes hooks (``HostSpec.install``), not by its name.

- ``hooks_json``: ovhooks' matcher groups merged into the ``hooks`` object of a JSON file (Claude
  Code's ``settings.json``, Gemini CLI's ``settings.json``); everything else in it untouched.
- ``shim``: ovhooks' script written into the folder the host loads (Pi's extension, OpenCode's
  plugin; ``shim_file``).
- ``codex``: Codex's own steps (``install/codex.py``: the feature flag, trust records).

Then, with the user scope, the memory tools where the host takes MCP servers (``HostSpec.mcp``):
after the hooks on install, before them on uninstall, so that a file both steps edit comes back
as its first backup left it.
"""

from __future__ import annotations

import json

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.commands.install import mcp_config
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ovhooks.hosts.spec import HostSpec


def next_steps(host: str, scope: str, *, trust: bool) -> list[str]:
    spec = host_spec(host)
    if spec.install == "codex":
        from ovhooks.commands.install import codex

        return codex.next_steps(scope, trust=trust)
    return list(spec.next_steps)


def _refuse_trust(spec: HostSpec) -> None:
    raise CommandError(
        f"--trust is for Codex ({spec.label} has no hook trust step)",
        fix="drop --trust",
        code=ExitCode.USAGE,
        slug="usage",
    )


def install(
    host: str,
    path: str,
    exe: str,
    environ: Mapping[str, str],
    cwd: str,
    *,
    dry_run: bool,
    trust: bool,
    mcp: bool,
) -> dict[str, Any]:
    """``{hooks_file, config_toml[, mcp][, trust]}``: what each step did."""
    spec = host_spec(host)
    if spec.install == "codex":
        from ovhooks.commands.install import codex

        return codex.install(path, exe, environ, cwd, dry_run=dry_run, trust=trust, mcp=mcp)
    if trust:
        _refuse_trust(spec)
    _check_files(spec, path, environ, mcp=mcp, writing=not dry_run)
    if spec.install == "shim":
        from ovhooks.commands.install.shim_file import install_shim, render, template

        assert spec.shim is not None  # a shim host names its shim (tests/hosts checks)
        text = render(template(spec.shim), exe)
        hooks_file = install_shim(path, text, dry_run=dry_run)
    else:
        hooks_file = _install_hooks(spec, path, exe, dry_run=dry_run)
    done: dict[str, Any] = {"hooks_file": hooks_file, "config_toml": None}
    if mcp:
        done["mcp"] = _register_mcp(spec, path, environ, exe, dry_run=dry_run)
    return done


def _check_files(
    spec: HostSpec, path: str, environ: Mapping[str, str], *, mcp: bool, writing: bool
) -> None:
    """Every file the steps will touch, read (and its write target found) before the first
    write: a FIFO or a broken link as the MCP file must not leave the hooks file edited."""
    from ovhooks.commands.install.files import check_host_files

    check_host_files(path, writing=writing, text=spec.install != "shim")
    if not mcp or spec.mcp is None:
        return
    if spec.mcp == "claude_json":
        mcp_path = mcp_config.claude_json_path(environ)
    else:
        mcp_path = hostconfig.mcp_file(spec.name, environ)
    check_host_files(mcp_path, writing=writing)


def _install_hooks(spec: HostSpec, path: str, exe: str, *, dry_run: bool) -> dict[str, Any]:
    from ovhooks.commands.install.files import install_hooks_file, read_json_doc

    info = install_hooks_file(path, spec.name, exe, dry_run=dry_run, top_level=spec.hooks_at_top)
    if spec.hooks_off and not dry_run:
        dotted, off = spec.hooks_off
        found: object = read_json_doc(path)[0]
        for key in dotted.split("."):
            found = found.get(key) if isinstance(found, dict) else None
        if found is off:
            info["fix"] = (
                f"{dotted} is {json.dumps(off)}: {spec.label} runs no hook at all until it "
                f"is {json.dumps(not off)}"
            )
    return info


def _register_mcp(
    spec: HostSpec, hooks_path: str, environ: Mapping[str, str], exe: str, *, dry_run: bool
) -> list[dict[str, Any]]:
    if spec.mcp == "claude_json":
        from ovhooks.commands.install.mcp_files import register_claude

        return register_claude(hooks_path, environ, exe, dry_run=dry_run)
    from ovhooks.commands.install import mcp_json

    assert spec.mcp is not None
    path = hostconfig.mcp_file(spec.name, environ)
    shared = path == hooks_path  # the hooks step kept this file's first state
    return [
        mcp_json.register_server(
            spec.mcp,
            path,
            exe,
            spec.label,
            keep_backup=shared,
            dry_run=dry_run,
            extra=spec.mcp_entry,
        )
    ]


def uninstall(
    host: str, path: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool
) -> dict[str, Any]:
    """The memory tools first (user scope), then the hooks or the shim."""
    spec = host_spec(host)
    if spec.install == "codex":
        from ovhooks.commands.install import codex

        return codex.uninstall(path, scope, environ, cwd, dry_run=dry_run)
    # Uninstall writes only into files that exist, so a dangling link is no reason to stop.
    _check_files(spec, path, environ, mcp=scope == "user", writing=False)
    done: dict[str, Any] = {"mcp": [], "config_toml": None}
    if scope == "user" and spec.mcp == "claude_json":
        from ovhooks.commands.install.mcp_files import unregister_claude

        done["mcp"] = unregister_claude(path, environ, dry_run=dry_run)
    elif scope == "user" and spec.mcp is not None:
        from ovhooks.commands.install import mcp_json

        mcp_path = hostconfig.mcp_file(spec.name, environ)
        shared = mcp_path == path  # the hooks step restores this file's backup next
        done["mcp"] = mcp_json.unregister_server(
            spec.mcp, mcp_path, keep_backup=shared, dry_run=dry_run
        )
    if spec.install == "shim":
        from ovhooks.commands.install.shim_file import uninstall_shim

        done["hooks_file"] = uninstall_shim(path, dry_run=dry_run)
    else:
        from ovhooks.commands.install.files import uninstall_hooks_file

        done["hooks_file"] = uninstall_hooks_file(
            path, dry_run=dry_run, top_level=spec.hooks_at_top
        )
    return done
