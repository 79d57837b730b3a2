"""Human and agent commands: install, doctor, status, memory verbs, lifecycle, import.

``ovhooks/cli.py`` calls ``register(app)``: ``doctor`` and ``install``/``uninstall`` are
module-level command functions registered here, the other modules still add their own. Each
imports its heavy dependencies (Rich) only when a command runs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import typer


def register(app: typer.Typer) -> None:
    from ovhooks.commands import export, importer, memory, sessions, status
    from ovhooks.commands.doctor.command import doctor
    from ovhooks.commands.install.command import install, uninstall

    app.command("install", rich_help_panel="Set-up")(install)
    app.command("uninstall", rich_help_panel="Set-up")(uninstall)
    app.command("doctor", rich_help_panel="Set-up")(doctor)
    for module in (status, memory, sessions, importer, export):
        module.register(app)
