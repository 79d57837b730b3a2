"""``ovhooks doctor``: check everything a working install needs; name the fix for each failure.

One module per check (or small family of checks), each returning ``result.Check`` records;
``runner`` orders them and builds the result document, ``command`` is the Typer command and
renders that document for people (``--json`` prints it as it is).

``state_dir_fix`` is re-exported because every command's error boundary names it.
"""

from __future__ import annotations

from ovhooks.commands.doctor.state_dir import state_dir_fix

__all__ = ["state_dir_fix"]
