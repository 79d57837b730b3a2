"""Human and agent commands: install, doctor, status, memory verbs, lifecycle, import.

``ovhooks/cli.py`` calls ``register(app)``; each module adds its own commands and imports
its heavy dependencies (Rich) only when a command runs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import typer


def register(app: typer.Typer) -> None:
    from ovhooks.commands import doctor, export, importer, install, memory, sessions, status

    for module in (install, doctor, status, memory, sessions, importer, export):
        module.register(app)
