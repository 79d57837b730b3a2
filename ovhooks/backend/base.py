"""The Backend protocol: everything ovhooks asks of a memory store.

Two implementations sit behind it: OpenViking over HTTP (``backend/openviking.py``) and the
embedded SQLite store (``backend/local.py``). Hooks and commands only ever see this protocol,
so one recall pipeline, one outbox and one set of lifecycle rules serve both.

Results are plain JSON-shaped dicts in the OpenViking 0.5.2 shapes (see
``shared/spec/openviking-api.md``): a local store returns the same shapes, which is what lets
``recall/`` rank and render entries without knowing where they came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ovhooks.transport.errors import BackendError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

JSON = dict[str, Any]

__all__ = ["JSON", "Backend", "BackendError"]


class Backend(Protocol):
    """What a memory store must do. All methods raise ``BackendError`` on failure."""

    name: str
    peer: str  # the project peer this backend acts for ("" = none)
    # Whether ``search_context(prompt=...)`` rates every candidate itself, lexically and by
    # meaning, and returns them undecided with that evidence (the local store); otherwise
    # its scores are read against its calibration. Either way ``recall.decision`` decides.
    rates_candidates: bool

    # --- sessions -------------------------------------------------------------------------
    def append_messages(self, session_id: str, messages: Sequence[Mapping[str, Any]]) -> JSON:
        """Append up to 100 messages; returns ``{session_id, message_count, pending_tokens}``.

        Creates the session when missing.
        """
        ...

    def commit(self, session_id: str, *, keep_recent_count: int = 0) -> JSON:
        """Archive the session's messages and start memory extraction.

        Returns ``{status: "accepted"|"skipped", task_id, archive_uri, ...}``; raises a
        ``BackendError`` with ``not_found`` for a session the store does not have.
        """
        ...

    def session_info(self, session_id: str) -> JSON:
        """``{message_count, commit_count, pending_tokens, last_commit_at, ...}``."""
        ...

    def session_context(self, session_id: str, token_budget: int) -> JSON:
        """``{latest_archive_overview, messages, estimatedTokens, stats}``."""
        ...

    def newest_mark(self, session_id: str, prefix: str) -> str | None:
        """The ``turn_id`` starting with ``prefix`` of the session's newest message that has
        one, live or archived (a commit does not erase it); None when no message has one.

        Raises a ``BackendError`` with ``not_found`` for a session the store does not have.
        """
        ...

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
        """Injection-ready context: ``{entries: [{uri, category, score, detail, text}], ...}``.
        ``prompt``: the user's prompt alone (``query`` may carry recent turns too), for a
        store that judges candidates itself; a server embeds ``query`` and ignores it."""
        ...

    def find(
        self,
        query: str,
        *,
        target_uri: str = "",
        limit: int = 10,
        score_threshold: float | None = None,
    ) -> JSON:
        """Plain search: ``{memories: [{uri, level, score, abstract, tags}], resources, ...}``."""
        ...

    # --- content --------------------------------------------------------------------------
    def read(self, uri: str, level: str = "full") -> str:
        """The text at ``uri``; ``level`` is ``abstract``, ``overview`` or ``full``."""
        ...

    def ls(self, uri: str, *, recursive: bool = False, limit: int = 512) -> list[JSON]:
        """Children of ``uri``: ``[{uri, size, isDir, modTime, abstract}]``."""
        ...

    def write(self, uri: str, content: str, *, mode: str = "replace") -> JSON:
        """Write (create or replace) a memory file."""
        ...

    def delete(self, uri: str) -> JSON:
        """Remove a memory file."""
        ...

    def whoami(self) -> str:
        """The user id the store sees this caller as (``default`` for a dev server)."""
        ...

    def health(self) -> JSON:
        """``{healthy: bool, version: str, ...}`` (only ``doctor`` and ``status`` call this)."""
        ...
