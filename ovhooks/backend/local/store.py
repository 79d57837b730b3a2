"""The local store's handle: where its files are, the URIs it answers with, its one SQLite
connection. What every part of the store (``sessions``, ``memories``, ``search``, ``content``)
takes as ``store``; below them and below the ``LocalBackend`` that calls them, so no part
imports the package that imports it (no import circle, lazy imports included).
"""

from __future__ import annotations

from ovhooks.backend.local.schema import DB_NAME, PROFILE_NAME

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _sqlite3 as sqlite3  # as schema.py imports it


class LocalStore:
    """``<data_dir>/memory.db`` and ``profile.md`` for ``user``; ``peer`` is the project peer."""

    def __init__(self, data_dir: str, *, user: str = "default", peer: str = "") -> None:
        import os

        self.data_dir = data_dir
        self.user = user or "default"
        self.peer = peer
        self.db_path = os.path.join(data_dir, DB_NAME)
        self.profile_path = os.path.join(data_dir, PROFILE_NAME)
        self._con: sqlite3.Connection | None = None
        # The embedding service, when recall by meaning is on (``backend.factory``).
        self.semantic: SemanticLink | None = None

    # --- URIs -----------------------------------------------------------------------------
    @property
    def user_root(self) -> str:
        return f"viking://user/{self.user}"

    @property
    def memories_root(self) -> str:
        return f"{self.user_root}/memories"

    @property
    def profile_uri(self) -> str:
        return f"{self.memories_root}/profile.md"

    def memory_root_for(self, peer: str) -> str:
        return f"{self.user_root}/peers/{peer}/memories" if peer else self.memories_root

    def archive_uri(self, session_id: str, number: int) -> str:
        return f"{self.user_root}/sessions/{session_id}/history/archive_{number:03d}"

    def expand(self, uri: str) -> str:
        """``uri`` with ``viking://~`` resolved to this user and no trailing slash."""
        uri = uri.strip()
        if uri.startswith("viking://~"):
            uri = self.user_root + uri[len("viking://~") :]
        return uri.rstrip("/") if uri != "viking://" else uri

    # --- connection -----------------------------------------------------------------------
    def db(self) -> sqlite3.Connection:
        """The open connection (opened, and the schema created, on first use)."""
        if self._con is None:
            from ovhooks.backend.local.schema import open_db

            self._con = open_db(self.db_path, self.data_dir)
        return self._con

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


class SemanticLink:
    """How a local store reaches the embedding service (set by ``backend.factory``)."""

    __slots__ = ("deadline_s", "idle_s", "state_dir")

    def __init__(self, state_dir: str, deadline_s: float, idle_s: float) -> None:
        self.state_dir = state_dir
        self.deadline_s = deadline_s
        self.idle_s = idle_s
