"""The dry-run plan: every write a hook would have made, said instead of done.

Interface §1: ``--dry-run`` may read from the server but writes nothing (no append, commit or
content write), changes no state file or queue and starts no worker; stderr gets a readable
plan. The dry-run state store, outbox and worker (``dryrun/record.py``) and backend
(``dryrun.backend.DryRunBackend``) record into a ``Plan`` instead of writing.
"""

from __future__ import annotations

import json


class Plan:
    """The lines of a dry run's plan, in the order the writes would have happened."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def note(self, line: str) -> None:
        self.lines.append(line)

    def write_request(self, method: str, path: str, body: object) -> None:
        self.note(f"{method} {path} {summarize(body)}")

    def render(self) -> str:
        if not self.lines:
            return "dry-run: nothing would be written\n"
        return "".join(f"dry-run: would {line}\n" for line in self.lines)


def summarize(body: object) -> str:
    """A short description of a request body: counts and sizes, not content."""
    if isinstance(body, dict):
        messages = body.get("messages")
        if isinstance(messages, list):
            size = len(json.dumps(messages, ensure_ascii=False))
            roles = ",".join(str(m.get("role")) for m in messages[:6] if isinstance(m, dict))
            more = "…" if len(messages) > 6 else ""
            return f"({len(messages)} message(s), {size} bytes: {roles}{more})"
        keys = ", ".join(sorted(body))
        return f"{{{keys}}}" if keys else "{}"
    if body is None:
        return ""
    return f"({type(body).__name__})"
