"""The Typer app: wiring only. Each command's logic lives in ``ovhooks/commands/``.

Hook commands are registered here for ``--help`` and discoverability, but the console script
routes them around Typer (see ``__main__.py``) because a hook must start fast.
"""

from __future__ import annotations

import sys

import typer

from ovhooks import __version__
from ovhooks.hosts.base import EVENT_NAMES

app = typer.Typer(
    name="ovhooks",
    help="Long-term memory for Codex CLI and Claude Code, backed by OpenViking.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,  # never print locals (API keys) in a traceback
    add_completion=False,
    # Help texts are plain text: JSON shapes like [uri] or [dry-run lines] must show as typed,
    # not be eaten as Rich markup tags.
    rich_markup_mode=None,
)

HostOption = typer.Option(None, "--host", help="Payload dialect: codex or claude.")
DryRunOption = typer.Option(False, "--dry-run", help="Read-only: print the plan on stderr.")


def _hook_command(command: str, event_name: str) -> None:
    def hook(host: str | None = HostOption, dry_run: bool = DryRunOption) -> None:
        from ovhooks.hookrun import main as hook_main

        argv = (["--host", host] if host else []) + (["--dry-run"] if dry_run else [])
        raise typer.Exit(hook_main(command, argv))

    hook.__doc__ = (
        f"Hook for the host's {event_name} event: reads the payload on stdin, prints one JSON "
        "reply on stdout, always exits 0."
    )
    app.command(command, rich_help_panel="Hook commands (run by the host)")(hook)


for _command, _event in EVENT_NAMES.items():
    _hook_command(_command, _event)


@app.command(rich_help_panel="Help")
def version() -> None:
    """Print the ovhooks version."""
    typer.echo(__version__)


def _register_human_commands() -> None:
    try:
        from ovhooks.commands import register
    except ImportError:
        return
    register(app)


_register_human_commands()


def run() -> None:
    """Run the app; Ctrl-C exits 130. Each command turns its own errors into one clear line
    and an exit code (``commands/output.py``); this catches nothing else."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
