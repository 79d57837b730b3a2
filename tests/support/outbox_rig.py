"""A backend that records the queue's requests, and a session outbox in a temp state dir."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ovhooks.outbox.queue import Outbox
from ovhooks.session.store import StateStore, new_state
from ovhooks.transport.errors import BackendError

if TYPE_CHECKING:
    from pathlib import Path

    from ovhooks.log import Log


class RecordingBackend:
    """Records what it was sent; fails after ``fail_after`` batches; refuses ``refuse`` (422).

    ``live`` is what the server's session holds, as ``session_context`` shows it; ``archived``
    what its commits archived.
    ``answer`` is what an accepted append returns (default: a growing ``pending_tokens``).
    """

    name = "recorder"
    peer = ""

    def __init__(
        self,
        fail_after: int | None = None,
        error: BackendError | None = None,
        refuse: str | None = None,
        answer: dict[str, Any] | None = None,
    ) -> None:
        self.appended: list[list[dict[str, Any]]] = []
        self.tried: list[list[dict[str, Any]]] = []  # every batch it was given, taken or not
        self.commits: list[str] = []
        self.fail_after = fail_after
        self.error = error or BackendError("unreachable", "down")
        self.refuse = refuse
        self.answer = answer
        self.live: list[dict[str, Any]] = []
        self.archived: list[dict[str, Any]] = []
        self.unsure: BackendError | None = None  # raised by newest_mark: the server can't say

    def append_messages(self, session_id: str, messages: list[dict[str, Any]]) -> Any:
        self.tried.append(list(messages))
        if self.fail_after is not None and len(self.appended) >= self.fail_after:
            raise self.error
        if self.refuse and any(self.refuse in json.dumps(m) for m in messages):
            raise BackendError("http", "invalid message", 422, "INVALID_ARGUMENT")
        self.appended.append(list(messages))
        self.live.extend(messages)
        if self.answer is not None:
            return dict(self.answer)
        return {"pending_tokens": 10 * len(self.appended)}

    def session_context(self, session_id: str, budget: int) -> Any:
        return {"messages": list(self.live)}

    def newest_mark(self, session_id: str, prefix: str) -> str | None:
        if self.unsure is not None:
            raise self.unsure
        for message in reversed(self.archived + self.live):
            mark = message.get("turn_id")
            if isinstance(mark, str) and mark.startswith(prefix):
                return mark
        return None

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> Any:
        """Archives the live messages, as the server's commit does."""
        self.commits.append(session_id)
        self.archived.extend(self.live)
        self.live = []
        return {"status": "accepted"}


def msgs(n: int, start: int = 0) -> list[dict[str, Any]]:
    """``n`` user messages with texts ``m<start>`` ...; what one capture queues."""
    return [
        {"role": "user", "parts": [{"type": "text", "text": f"m{i}"}]}
        for i in range(start, start + n)
    ]


def texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["parts"][0]["text"] for m in messages]


def session_box(
    tmp_path: Path, clock: Any = None, window: float = 120.0, log: Log | None = None
) -> Outbox:
    """The outbox of session ``cx-a``, whose state document exists (empty queue)."""
    store = StateStore(str(tmp_path))
    store.update("cx-a", lambda d: None, create=lambda: new_state("cx-a", "codex", "a", 1.0))
    kwargs: dict[str, Any] = {"inflight_window_s": window, "log": log}
    if clock is not None:
        kwargs["clock"] = clock
    return Outbox(store, "cx-a", **kwargs)
