"""Factory Droid's dialect (0.225.2, ``shared/spec/hosts-wave4.md`` §3).

Droid runs Claude-style command hooks from ``~/.factory/hooks.json``, keyed by event at the
top level, and sends Claude Code's payload fields; replies are Claude Code's
(``hookSpecificOutput.additionalContext``: SessionStart's arrives as its own user message
after the system prompt). What differs is said here:

- ``Stop`` carries no ``last_assistant_message``: capture reads the reply from the session
  file (``transcripts/droid.py``), which Droid has written by then;
- ``droid exec`` fires SessionStart, Stop and SessionEnd (and the tool hooks) but **not**
  UserPromptSubmit, so headless recall is SessionStart's block only.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def factory_dir(environ: Mapping[str, str]) -> str:
    """``~/.factory``: Droid's settings, hooks, MCP servers and sessions."""
    return os.path.join(environ.get("HOME") or os.path.expanduser("~"), ".factory")
