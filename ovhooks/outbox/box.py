"""What the queue's parts share, below all of them: the batch size, the in-flight error, what
a drain did, and ``Box``, the side of the queue that sending (``send``) and adopting an older
version's files (``legacy``) work on.

The queue (``queue.Outbox``) calls both of them; they take the queue as a ``Box`` from here,
so neither imports the module that calls it (no import circle, lazy imports included).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    from ovhooks.log import Log
    from ovhooks.session.store import StateStore
    from ovhooks.settings.layout import QueueEntry, State
    from ovhooks.transport.errors import BackendError

    class Box(Protocol):
        """One session's queue (``queue.Outbox`` and the dry run's ``PlannedOutbox``)."""

        store: StateStore
        key: str
        state_dir: str
        dir: str
        log: Log | None
        window_s: float
        clock: Callable[[], float]

        def write_blob(self, session: str, messages: list[dict[str, Any]]) -> str: ...
        def read_blob(self, name: str) -> list[dict[str, Any]]: ...
        def drop_blob(self, name: str) -> None: ...
        def append_entry(
            self, doc: State, op: str, session: str, now: float, **fields: Any
        ) -> None: ...
        def update_entry(self, seq: int, change: Callable[[QueueEntry, State], None]) -> None: ...
        def patch(self, seq: int, **values: Any) -> None: ...
        def remove(self, seq: int, change: Callable[[State], None] | None = None) -> None: ...


MAX_BATCH = 100


class InflightError(Exception):
    """A batch may still land on the server: nothing more is sent for the session yet.

    ``retry_in``: the seconds until the batch is decided without news from the server (its
    processing window ends), or None when the server could not be asked.
    """

    retryable = True
    kind = "inflight"
    status = None
    not_found = False

    def __init__(self, message: str, *, retry_in: float | None = None) -> None:
        super().__init__(message)
        self.retry_in = retry_in


class DrainResult:
    """What one drain did: messages sent, commit answers, records set aside, what is left."""

    __slots__ = ("commits", "dead", "error", "messages_sent", "pending_tokens", "remaining")

    def __init__(self) -> None:
        self.messages_sent = 0
        self.commits: list[dict[str, Any]] = []
        self.pending_tokens: int | None = None
        self.error: BackendError | InflightError | None = None
        self.dead = 0
        self.remaining = 0
