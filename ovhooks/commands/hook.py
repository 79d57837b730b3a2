"""The hook commands as the Typer app shows them (``ovhooks stop --help``).

The console script runs hooks without Typer (``__main__.py``): a hook must start fast. This
entry is for ``--help`` and for running the app object directly; both end in ``hookrun``.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ovhooks.hosts.registry import HOSTS

HELP = (
    "Hook for the host's {event} event: reads the payload on stdin, prints one JSON "
    "reply on stdout, always exits 0."
)


def hook(
    ctx: typer.Context,
    host: Annotated[
        str | None,
        typer.Option(
            "--host",
            help=f"Payload dialect: {', '.join(HOSTS[:-1])} or {HOSTS[-1]} "
            "(found from the payload and the environment when left out).",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Read-only: print the plan on stderr.")
    ] = False,
) -> None:
    # One function serves every hook command: the name it was called by is the command.
    from ovhooks.hookrun import main as hook_main

    argv = (["--host", host] if host else []) + (["--dry-run"] if dry_run else [])
    raise typer.Exit(hook_main(str(ctx.info_name), argv))


def version() -> None:
    """Print the ovhooks version."""
    from ovhooks import __version__

    typer.echo(__version__)


def _print_version(value: bool) -> None:
    if value:
        version()
        raise typer.Exit


def app_options(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The options of ``ovhooks`` itself (``--version``, as the ``version`` command)."""
