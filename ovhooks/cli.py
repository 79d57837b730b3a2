"""The Typer app: wiring only. Each command is a function in ``ovhooks/commands/``.

Hook commands are registered here for ``--help`` and discoverability, but the console script
routes them around Typer (see ``__main__.py``) because a hook must start fast.
"""

from __future__ import annotations

import sys

import typer

from ovhooks.commands import (
    export,
    forget,
    hook,
    importer,
    memory,
    semantic,
    sessions,
    status,
)
from ovhooks.commands.doctor import command as doctor
from ovhooks.commands.install import command as install
from ovhooks.hosts.base import EVENT_NAMES, HOSTS
from ovhooks.hosts.registry import labels as host_labels
from ovhooks.mcp import command as mcp
from ovhooks.ui import command as ui

app = typer.Typer(
    name="ovhooks",
    help="Long-term memory for coding agents ("
    + ", ".join(host_labels()[h] for h in HOSTS)
    + "), backed by an OpenViking server or a local store.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,  # never print locals (API keys) in a traceback
    add_completion=False,
    # Help texts are plain text: JSON shapes like [uri] or [dry-run lines] must show as typed,
    # not be eaten as Rich markup tags.
    rich_markup_mode=None,
)


app.callback()(hook.app_options)

HOOKS = "Hook commands (run by the host)"
SETUP = "Set-up"
MEMORY = "Memory (for people and agents)"
LIFECYCLE = "Lifecycle"

for _command, _event in EVENT_NAMES.items():
    app.command(_command, help=hook.HELP.format(event=_event), rich_help_panel=HOOKS)(hook.hook)
app.command("version", rich_help_panel="Help")(hook.version)

app.command("install", rich_help_panel=SETUP)(install.install)
app.command("uninstall", rich_help_panel=SETUP)(install.uninstall)
app.command("doctor", rich_help_panel=SETUP)(doctor.doctor)
app.command("status", rich_help_panel=SETUP)(status.status)
app.command("semantic", rich_help_panel=SETUP)(semantic.semantic)

app.command("search", rich_help_panel=MEMORY)(memory.search)
app.command("read", rich_help_panel=MEMORY)(memory.read)
app.command("ls", rich_help_panel=MEMORY)(memory.ls)
app.command("remember", rich_help_panel=MEMORY)(memory.remember)
app.command("forget", rich_help_panel=MEMORY)(forget.forget)
app.command("mcp", rich_help_panel=MEMORY)(mcp.mcp)

app.command("commit", rich_help_panel=LIFECYCLE)(sessions.commit)
app.command("sweep", rich_help_panel=LIFECYCLE)(sessions.sweep)
app.command("flush", rich_help_panel=LIFECYCLE)(sessions.flush)
app.command("import", rich_help_panel=LIFECYCLE)(importer.import_)
app.command("export", rich_help_panel=LIFECYCLE)(export.export)
app.command("ui", rich_help_panel=MEMORY)(ui.ui)


def run() -> None:
    """Run the app; Ctrl-C exits 130. Each command turns its own errors into one clear line
    and an exit code (``commands/output.py``); this catches nothing else."""
    from ovhooks.commands.output import redact_std_streams

    redact_std_streams()
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
