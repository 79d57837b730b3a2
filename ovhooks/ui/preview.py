"""What the next session start in a project will inject: the real SessionStart hook, dry-run.

The hook runs as the host runs it (a process, the payload on stdin), with ``--dry-run`` so it
writes nothing, and its reply's context is what the page shows: not a re-implementation
that could drift from it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

PREVIEW_TIMEOUT_S = 15.0


def session_start_block(cwd: str, host: str = "codex") -> str:
    """The context block the next SessionStart injects in ``cwd`` ("" when none)."""
    payload = {
        "hook_event_name": "SessionStart",
        "session_id": "ovhooks-ui-preview",
        "cwd": cwd,
        "source": "startup",
        "transcript_path": "",
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ovhooks", "session-start", "--host", host, "--dry-run"],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=PREVIEW_TIMEOUT_S,
            cwd=cwd if os.path.isdir(cwd) else None,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    try:
        reply = json.loads(done.stdout or "{}")
    except ValueError:
        return ""
    specific = reply.get("hookSpecificOutput") if isinstance(reply, dict) else None
    context = specific.get("additionalContext") if isinstance(specific, dict) else None
    return context if isinstance(context, str) else ""
