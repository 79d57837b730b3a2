"""The embedded local store: the Backend protocol on one SQLite file, no server needed.

Layout: ``<data_dir>/memory.db`` (sessions, messages, archives, memories and their FTS5
indexes) and ``<data_dir>/profile.md`` (the user profile, a file the user may edit by hand).
Answers have the OpenViking 0.5.2 shapes (``shared/spec/openviking-api.md`` §A), and memory
URIs follow the server's layout, so recall, commands and a later export need not know which
store ran:

- ``viking://user/<user>/memories/{preferences,entities,events}/…``  user-level memories
- ``viking://user/<user>/peers/<peer>/memories/…``                  project-level memories
- ``viking://user/<user>/memories/profile.md``                      the profile file
- ``viking://user/<user>/sessions/<id>/history/archive_NNN``        commit archives

The work is split by concern, each module imported only when a call needs it (a hook process
pays for what it uses): ``schema`` (file, schema, transactions), ``store`` (the handle
every part takes: files, URIs, connection), ``sessions`` (append, commit, session views),
``extraction`` (what a commit keeps), ``memories`` (promotion, writes),
``search`` (recall scoring), ``content`` (read, ls, export) and ``text`` (search terms).
"""

from __future__ import annotations

from ovhooks.backend.local.schema import DB_NAME, PROFILE_NAME, SCHEMA_VERSION
from ovhooks.backend.local.store import LocalStore

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from ovhooks.backend.base import JSON

__all__ = ["DB_NAME", "PROFILE_NAME", "LocalBackend"]


class LocalBackend(LocalStore):
    """The Backend protocol on ``<data_dir>/memory.db``; ``peer`` is the project peer id."""

    name = "local"
    rates_candidates = True

    # --- sessions -------------------------------------------------------------------------
    def append_messages(self, session_id: str, messages: Sequence[Mapping[str, Any]]) -> JSON:
        from ovhooks.backend.local import sessions

        return sessions.append_messages(self, session_id, messages)

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> JSON:
        from ovhooks.backend.local import sessions

        return sessions.commit(self, session_id, keep_recent_count=keep_recent_count)

    def session_info(self, session_id: str) -> JSON:
        from ovhooks.backend.local import sessions

        return sessions.session_info(self, session_id)

    def session_context(self, session_id: str, token_budget: int) -> JSON:
        from ovhooks.backend.local import sessions

        return sessions.session_context(self, session_id, token_budget)

    def newest_mark(self, session_id: str, prefix: str) -> str | None:
        from ovhooks.backend.local import sessions

        return sessions.newest_mark(self, session_id, prefix)

    # --- retrieval ------------------------------------------------------------------------
    def search_context(
        self,
        query: str,
        *,
        session_id: str | None = None,
        score_threshold: float = 0.0,
        max_tokens: int | None = None,
        exclude_uris: Sequence[str] = (),
        prompt: str | None = None,
    ) -> JSON:
        from ovhooks.backend.local import search

        return search.search_context(
            self,
            query,
            session_id=session_id,
            score_threshold=score_threshold,
            max_tokens=max_tokens,
            exclude_uris=exclude_uris,
            prompt=prompt,
        )

    def find(
        self,
        query: str,
        *,
        target_uri: str = "",
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> JSON:
        from ovhooks.backend.local import search

        return search.find(
            self, query, target_uri=target_uri, limit=limit, score_threshold=score_threshold
        )

    # --- content --------------------------------------------------------------------------
    def read(self, uri: str, level: str = "full") -> str:
        from ovhooks.backend.local import content

        return content.read(self, uri, level)

    def ls(self, uri: str, *, recursive: bool = False, limit: int = 512) -> list[JSON]:
        from ovhooks.backend.local import content

        return content.ls(self, uri, recursive=recursive, limit=limit)

    def write(self, uri: str, content: str, *, mode: str = "replace") -> JSON:
        from ovhooks.backend.local import memories

        return memories.write(self, uri, content, mode=mode)

    def delete(self, uri: str) -> JSON:
        from ovhooks.backend.local import memories

        return memories.delete(self, uri)

    def memory_record(self, uri: str) -> JSON | None:
        """The whole stored memory at ``uri``, for an undo (not in the Backend protocol: an
        OpenViking server has no such read; see ``ui.trash``)."""
        from ovhooks.backend.local import memories

        return memories.record(self, uri)

    def restore_memories(self, records: list[JSON]) -> list[str]:
        """Put back memories ``memory_record`` read, provenance and times included."""
        from ovhooks.backend.local import memories

        return memories.restore(self, records)

    def whoami(self) -> str:
        return self.user

    def health(self) -> JSON:
        import _sqlite3 as sqlite3  # not the sqlite3 package: see schema.py

        from ovhooks.backend.local.schema import db_error

        try:
            self.db().execute("SELECT 1").fetchone()
        except sqlite3.Error as exc:
            raise db_error(exc) from None
        return {
            "status": "ok",
            "healthy": True,
            "version": f"local-{SCHEMA_VERSION}",
            "backend": "local",
            "path": self.db_path,
        }

    # --- export (read-only iteration for ``ovhooks export``) -------------------------------
    def export_sessions(self) -> list[JSON]:
        """This user's sessions, oldest first: ``{session_id, peer, commit_count, seqs}``,
        ``seqs`` listing ``(seq, archive number or None while live)`` of every message."""
        from ovhooks.backend.local import content

        return content.export_sessions(self)

    def export_messages(self, session_id: str, first_seq: int, last_seq: int) -> list[JSON]:
        """Messages ``first_seq..last_seq`` of a session as they were appended, in order."""
        from ovhooks.backend.local import content

        return content.export_messages(self, session_id, first_seq, last_seq)

    def export_memories(self) -> list[tuple[str, str, str]]:
        """``(uri, peer, content)`` of every memory file of this user, the profile included."""
        from ovhooks.backend.local import content

        return content.export_memories(self)
