"""What became of a commit: how many memories its extraction wrote, or why it failed.

OpenViking archives a session inside the commit request and extracts memories afterwards, in
a task (``GET /api/v1/tasks/{task_id}``: pending -> running -> completed | failed; ~11 s with
an instant model). The worker records each commit's task in the session state
(``last_extraction``) and, once its jobs are done and their locks released, polls the pending
ones for a bounded time. ``status`` shows the result per session; the next SessionStart says
once when an extraction failed. The local store extracts inside the commit, so its outcome is
known at once.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.log import Log
    from ovhooks.session.store import StateStore
    from ovhooks.settings.layout import State

POLL_DEADLINE_S = 60.0  # the extraction took ~11 s on a real server with an instant model
POLL_EVERY_S = 1.0
DONE = ("completed", "failed")


def _count(extracted: object) -> int | None:
    """Memories written, from ``{"memory_write": 3}`` (server) or ``{"total": 3}`` (local)."""
    if isinstance(extracted, int):
        return extracted
    if isinstance(extracted, dict):
        if isinstance(extracted.get("total"), int):
            return int(extracted["total"])
        return sum(v for v in extracted.values() if isinstance(v, int))
    return None


def from_commit(answer: Mapping[str, Any], now: float) -> dict[str, Any] | None:
    """The outcome a commit answer already tells, or ``None`` for a skipped commit."""
    if answer.get("status") == "skipped":
        return None
    memories = _count(answer.get("memories_extracted"))
    task_id = answer.get("task_id")
    if memories is not None:
        return {"status": "completed", "memories": memories, "task_id": task_id, "at": now}
    if isinstance(task_id, str) and task_id:
        return {"status": "pending", "memories": None, "task_id": task_id, "at": now}
    return None


def from_task(task: Mapping[str, Any], previous: Mapping[str, Any], now: float) -> dict[str, Any]:
    """The outcome from a task document (openviking-api: tasks)."""
    status = str(task.get("status") or "unknown")
    result = task.get("result")
    memories = _count(result.get("memories_extracted")) if isinstance(result, dict) else None
    out = {**previous, "status": status, "memories": memories, "at": now}
    if status == "failed":
        out["error"] = str(task.get("error") or "extraction failed")[:300]
        out["reported"] = False
    return out


def record(store: StateStore, key: str, commits: Sequence[Mapping[str, Any]], now: float) -> None:
    """Keep the newest commit's outcome in the session state (called by the worker's drain)."""
    outcomes = [o for o in (from_commit(c, now) for c in commits) if o is not None]
    if outcomes:

        def keep(doc: State) -> None:
            doc["last_extraction"] = outcomes[-1]

        store.update(key, keep)


def pending(states: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, str]]:
    """``(session key, peer, task id)`` of extractions not known to have ended."""
    out = []
    for doc in states:
        outcome = doc.get("last_extraction")
        if isinstance(outcome, dict) and outcome.get("status") not in (*DONE, "unknown"):
            task_id = outcome.get("task_id")
            if isinstance(task_id, str) and task_id and not task_id.startswith("local-"):
                out.append((str(doc.get("key")), str(doc.get("peer") or ""), task_id))
    return out


def poll_pending(
    store: StateStore,
    backend_for: Callable[[str], Backend],
    *,
    log: Log,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    deadline_s: float = POLL_DEADLINE_S,
) -> None:
    """Poll every pending extraction until it ends or the deadline passes."""
    from ovhooks.transport.errors import BackendError

    waiting = pending(store.all())
    deadline = time.monotonic() + deadline_s
    while waiting:
        still: list[tuple[str, str, str]] = []
        for key, peer, task_id in waiting:
            ask = getattr(backend_for(peer), "task", None)
            if ask is None:
                continue
            try:
                task = ask(task_id)
            except BackendError as exc:
                if exc.status == 404:  # the server forgot the task (restart): stop asking
                    _save(store, key, task_id, {"status": "unknown"}, clock())
                continue
            outcome = _save(store, key, task_id, task, clock())
            if outcome in DONE:
                log.info("extraction_" + outcome, session=key, task=task_id)
            else:
                still.append((key, peer, task_id))
        waiting = still
        if not waiting or time.monotonic() + POLL_EVERY_S > deadline:
            return
        sleep(POLL_EVERY_S)


def _save(store: StateStore, key: str, task_id: str, task: Mapping[str, Any], now: float) -> str:
    status = str(task.get("status") or "unknown")

    def change(doc: State) -> None:
        previous = doc.get("last_extraction")
        if isinstance(previous, dict) and previous.get("task_id") == task_id:
            doc["last_extraction"] = from_task(task, previous, now)

    store.update(key, change)
    return status


def describe(outcome: object) -> str:
    """One phrase for ``status``: ``3 memories extracted`` / ``extraction running`` / ..."""
    if not isinstance(outcome, dict):
        return ""
    status = outcome.get("status")
    if status == "completed":
        n = outcome.get("memories")
        return f"{n} memor{'y' if n == 1 else 'ies'} extracted" if isinstance(n, int) else "done"
    if status == "failed":
        return f"extraction failed: {str(outcome.get('error') or '')[:80]}"
    if status in ("pending", "running"):
        return "extraction still running"
    return "extraction outcome unknown"


def failure_notice(store: StateStore, states: Iterable[Mapping[str, Any]]) -> str | None:
    """Say once (then mark it reported) that an extraction failed; ``None`` if none did."""
    failed = []
    for doc in states:
        outcome = doc.get("last_extraction")
        if (
            isinstance(outcome, dict)
            and outcome.get("status") == "failed"
            and not outcome.get("reported")
        ):
            failed.append((str(doc.get("key")), str(outcome.get("error") or "")))
    if not failed:
        return None
    for key, _error in failed:

        def mark(doc: State) -> None:
            outcome = doc.get("last_extraction")
            if isinstance(outcome, dict):
                outcome["reported"] = True

        store.update(key, mark)
    key, error = failed[0]
    more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
    return (
        f"ovhooks: memory extraction failed for {key}{more}: {error[:160]}. The turns are "
        "archived on the server; see `ovhooks status`."
    )
