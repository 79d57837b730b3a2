"""The ``ovhooks install`` and ``uninstall`` commands: check the host and scope, hand the work
to the host's install kind (``commands/install/kinds.py``), print what changed."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from ovhooks.commands import hostconfig
from ovhooks.commands.errors import CommandError, ExitCode
from ovhooks.commands.install import kinds, mcp_config
from ovhooks.commands.output import JsonFlag, Output, boundary
from ovhooks.hosts.registry import spec as host_spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from rich.console import Console

# Every host by its name and what people call it, from the registry (help names them all).
_CHOICES = [f"{name} ({label})" for name, label in hostconfig.HOST_LABELS.items()]
HostArg = Annotated[
    str, typer.Argument(help=f"{', '.join(_CHOICES[:-1])} or {_CHOICES[-1]}", show_default=False)
]
ScopeOption = Annotated[
    str,
    typer.Option(
        "--scope",
        help="user: the host's configuration in your home (~/.codex/hooks.json, "
        "~/.claude/settings.json, ~/.gemini/settings.json, ...); project: the same file in the "
        "current git project (.codex/hooks.json, ...). --dry-run names the exact files.",
    ),
]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Say what would change; write nothing.")
]


def _check(host: str, scope: str) -> None:
    """A usage error for an unknown host or scope."""
    if host not in hostconfig.HOSTS:
        raise CommandError(
            f"unknown host {host!r}",
            fix=f"use one of: {', '.join(hostconfig.HOSTS)}",
            code=ExitCode.USAGE,
            slug="usage",
        )
    if scope not in hostconfig.SCOPES:
        raise CommandError(
            f"unknown scope {scope!r}", fix="use user or project", code=ExitCode.USAGE, slug="usage"
        )


# The hosts install registers ``ovhooks mcp`` with (``HostSpec.mcp``).
MCP_HOSTS = mcp_config.MCP_HOSTS


def do_install(
    host: str,
    scope: str,
    environ: Mapping[str, str],
    cwd: str,
    *,
    executable: str | None = None,
    dry_run: bool = False,
    trust: bool = False,
    mcp: bool = True,
) -> dict[str, Any]:
    """``mcp``: also register ``ovhooks mcp`` (user scope only: it is one server per user)."""
    _check(host, scope)
    exe = executable or hostconfig.hook_executable()
    path = hostconfig.hooks_file(host, scope, environ, cwd)
    result: dict[str, Any] = {
        "host": host,
        "scope": scope,
        "dry_run": dry_run,
        "executable": exe,
        "events": [event for event, *_ in hostconfig.HOOK_TABLE[host]],
    }
    # The memory tools: wherever the host takes MCP servers, one server per user.
    mcp = mcp and scope == "user" and host in MCP_HOSTS
    result.update(
        kinds.install(host, path, exe, environ, cwd, dry_run=dry_run, trust=trust, mcp=mcp)
    )
    if mcp and not dry_run:
        from ovhooks.commands.install.mcp_files import set_marker

        set_marker(environ, host, registered=True)
    result["next_steps"] = kinds.next_steps(host, scope, trust=trust)
    return result


def do_uninstall(
    host: str, scope: str, environ: Mapping[str, str], cwd: str, *, dry_run: bool = False
) -> dict[str, Any]:
    from ovhooks.commands.install.files import remove_created_dirs

    _check(host, scope)
    path = hostconfig.hooks_file(host, scope, environ, cwd)
    result: dict[str, Any] = {"host": host, "scope": scope, "dry_run": dry_run}
    result.update(kinds.uninstall(host, path, scope, environ, cwd, dry_run=dry_run))
    if not dry_run:
        result["removed_dirs"] = remove_created_dirs(path)
        if scope == "user" and host in MCP_HOSTS:
            from ovhooks.commands.install.mcp_files import set_marker

            set_marker(environ, host, registered=False)
    return result


def _hooks_label(host: str) -> str:
    return "extension" if host_spec(host).install == "shim" else "hooks"


def render(result: dict[str, Any], *, removing: bool) -> Callable[[Console], None]:
    """People's view of what install or uninstall changed, file by file."""

    def show(console: Console) -> None:
        from rich.markup import escape

        host = hostconfig.HOST_LABELS.get(result["host"], result["host"])
        verb = "removed from" if removing else "installed for"
        prefix = "(dry run) would be " if result["dry_run"] else ""
        console.print(f"[bold]ovhooks {prefix}{verb} {host}[/] ({result['scope']} scope)")
        for label, key in (
            (_hooks_label(result["host"]), "hooks_file"),
            ("config.toml", "config_toml"),
            ("trust", "trust"),
        ):
            info = result.get(key)
            if not info:
                continue
            line = f"  {label}: {escape(info['path'])} — {info['action']}"
            if info.get("detail"):
                line += f" ({escape(info['detail'])})"
            if info.get("backup"):
                line += f"; backup: {escape(info['backup'])}"
            console.print(line)
            if info.get("fix"):
                console.print(f"  [yellow]fix:[/] {escape(info['fix'])}")
        for info in result.get("mcp") or []:
            line = f"  memory tools: {escape(info['path'])} — {info['action']}"
            if info.get("detail"):
                line += f" ({escape(info['detail'])})"
            console.print(line)
            if info.get("fix"):
                console.print(f"  [yellow]fix:[/] {escape(info['fix'])}")
        for directory in result.get("removed_dirs") or []:
            console.print(f"  folder: {escape(directory)} — removed (ovhooks had created it)")
        if not removing:
            console.print(
                f"  command: {escape(result['executable'])} <hook> --host {result['host']}"
            )
            console.print("[bold]Next:[/]")
            for step in result["next_steps"]:
                console.print(f"  • {escape(step)}")

    return show


@boundary("install")
def install(
    host: HostArg,
    scope: ScopeOption = "user",
    exe: Annotated[
        str | None,
        typer.Option(
            "--exe",
            help="Command that starts ovhooks in the hooks (default: the absolute path of the "
            "ovhooks script of this installation). Use `ovhooks` for a shared project file.",
        ),
    ] = None,
    dry_run: DryRunOption = False,
    trust: Annotated[
        bool,
        typer.Option(
            "--trust",
            help="Codex only: record Codex's trust for ovhooks' own hooks now (asks Codex for "
            "their hashes), instead of reviewing them in Codex's /hooks.",
        ),
    ] = False,
    no_mcp: Annotated[
        bool,
        typer.Option(
            "--no-mcp",
            help="Do not register the memory tools (`ovhooks mcp`) with the host "
            "(user scope only registers them).",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> int:
    """Register ovhooks with a coding agent (idempotent): HOST is one of the names below.

    Every host with command hooks (all but Pi and OpenCode): merges one entry per hook event
    into the host's hooks file (other hooks kept), keeps a backup
    (<file>.ovhooks.bak), writes atomically, and for Codex switches the hooks feature on; each
    hook runs through a fail-open launcher, so a missing, broken or hung ovhooks never blocks
    the agent. With the user scope it also registers the memory tools server (`ovhooks mcp`)
    where the host takes MCP servers. Pi, OpenCode: writes ovhooks' extension / plugin file
    into the host's folder (a file of that name that is not ovhooks' is kept as the backup).
    Running it again changes nothing.
    """
    result = do_install(
        host,
        scope,
        os.environ,
        os.getcwd(),
        executable=exe,
        dry_run=dry_run,
        trust=trust,
        mcp=not no_mcp,
    )
    Output("install", as_json=as_json).emit(result, render(result, removing=False))
    return 0


@boundary("uninstall")
def uninstall(
    host: HostArg,
    scope: ScopeOption = "user",
    dry_run: DryRunOption = False,
    as_json: JsonFlag = False,
) -> int:
    """Remove exactly ovhooks' hooks (and its memory tools entry) from a host (HOST below);
    nothing else changes.

    Right after an install, the files come back byte for byte as they were.
    """
    result = do_uninstall(host, scope, os.environ, os.getcwd(), dry_run=dry_run)
    Output("uninstall", as_json=as_json).emit(result, render(result, removing=True))
    return 0
