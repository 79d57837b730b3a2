"""What one doctor check reports, the shapes checks share, and the tally of a run (pure; no
check runs here)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TypedDict

    class Check(TypedDict):
        """One line of ``doctor``'s report; ``details`` holds the check's own fields (JSON)."""

        name: str
        status: str  # one of STATUSES
        summary: str
        fix: str  # what to do; empty when there is nothing to do
        details: dict[str, Any]

    # A host's hooks file that registers ovhooks, as the hooks check finds it and the Codex
    # trust check reads it (here, below both, so neither imports the other for it).
    Handler = tuple[str, int, int, str]  # (event, group index, handler index, command)
    Registration = tuple[str, str, list[Handler]]  # (scope, hooks file, ovhooks' handlers)


STATUSES = ("ok", "warn", "fail", "skip")


def check(name: str, status: str, summary: str, fix: str = "", /, **details: object) -> Check:
    return {"name": name, "status": status, "summary": summary, "fix": fix, "details": details}


def counts(checks: Iterable[Check]) -> dict[str, int]:
    """Status -> how many checks ended with it (every status present, zeros included)."""
    tally = dict.fromkeys(STATUSES, 0)
    for item in checks:
        tally[item["status"]] += 1
    return tally
