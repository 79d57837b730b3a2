"""What each page of the viewer shows, gathered from the backend and the state dir.

Everything goes through the code the hooks and commands use: the backend factory with the
hooks' identity and project peer, ``recall_for_prompt`` (with a ``Trace``) for search and
"why this memory", the recall log the hook writes, the session documents, doctor's runner,
and the real SessionStart hook (``--dry-run``) for "what the next session start injects".
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.recall.trace import Row, Trace
    from ovhooks.settings.config import Settings

LOG_ROWS = 200


class UserError(Exception):
    """Something the person asked for that cannot be done; shown to them as is."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Why:
    """A recall explained: the trace's facts, its rows, and ``lines``, the readable text of
    every row's memory by URI (a dropped candidate's too: its text read from the store)."""

    __slots__ = ("block", "error", "lines", "min_confidence", "query", "reason", "rows", "tokens")

    def __init__(
        self, trace: Trace, rows: list[Row], reason: str, lines: dict[str, str] | None = None
    ) -> None:
        self.error = trace.error
        self.query = trace.query
        self.block = trace.block
        self.tokens = trace.tokens
        self.rows = rows
        self.reason = reason
        self.lines = lines or {}
        self.min_confidence = trace.min_confidence


class Data:
    """The viewer's reads and writes for one request."""

    def __init__(self, settings: Settings, cwd: str) -> None:
        from ovhooks.commands.common import current_identity

        self.settings = settings
        self.cwd = cwd
        self.peer = current_identity(settings, cwd).peer

    def backend(self) -> Backend:
        from ovhooks.commands.common import command_backend

        return command_backend(self.settings, peer=self.peer)

    def user(self, backend: Backend) -> str:
        return str(getattr(backend, "user", "") or backend.whoami())

    def own_memories(self, backend: Backend, uris: list[str], verb: str) -> list[str]:
        """``uris`` if every one names a memory file of this user's (``ovhooks.rules.memory_uri``,
        the rule the CLI and the MCP tools apply); a 400 naming the first that does not."""
        from ovhooks.rules.memory_uri import UriError, parse_asking_who

        users: list[str] = []  # asked of the store once, and only if a URI needs it

        def whoami() -> str:
            if not users:
                users.append(self.user(backend))
            return users[0]

        try:
            return [parse_asking_who(uri, whoami).uri for uri in uris]
        except UriError as exc:
            raise UserError(f"cannot {verb}: {exc}; nothing was changed") from None

    # --- memories -------------------------------------------------------------------------
    def memories(self, scope: str, category: str, number: int, q: str) -> dict[str, Any]:
        from ovhooks.transport.errors import BackendError
        from ovhooks.ui import memories, recall_log

        problem = memories.filter_problem(scope, category)
        if problem:
            raise UserError(problem)
        backend = self.backend()
        stats = recall_log.per_memory(recall_log.entries(self.settings.state_dir))
        try:
            if q.strip():
                found = self.why(q)
                return {
                    "mode": "search",
                    "q": q,
                    "scope": scope,
                    "category": category,
                    "found": found,
                    "stats": stats,
                    "peer": self.peer,
                    "page": None,
                }
            page = memories.list_page(
                backend, self.peer, scope, category, number, self.user(backend)
            )
        except BackendError as exc:
            raise UserError(_backend_words(exc), 502) from exc
        return {
            "mode": "list",
            "q": "",
            "scope": scope,
            "category": category,
            "page": page,
            "stats": stats,
            "peer": self.peer,
            "found": None,
        }

    def memory(self, uri: str) -> dict[str, Any]:
        from ovhooks.transport.errors import BackendError
        from ovhooks.ui import recall_log
        from ovhooks.ui.memories import category_of, provenance, scope_of

        backend = self.backend()
        try:
            content = backend.read(uri, "full")
        except BackendError as exc:
            if exc.not_found:
                raise UserError(f"no memory at {uri} (forgotten?)", 404) from exc
            raise UserError(_backend_words(exc), 502) from exc
        stats = recall_log.per_memory(recall_log.entries(self.settings.state_dir))
        count, last = stats.get(uri, (0, None))
        from ovhooks.rules.limits import MEMORY_MAX_BYTES

        size = len(content.encode("utf-8", "surrogatepass"))
        return {
            "uri": uri,
            "content": content,
            # One stored before the limit (3.9 MB were): the page shows its start, no editor.
            "size": size,
            "oversize": size > MEMORY_MAX_BYTES,
            "limit": MEMORY_MAX_BYTES,
            "category": category_of(uri),
            "scope": scope_of(uri, self.peer),
            "provenance": provenance(backend, uri),
            "injected": count,
            "last_injected": last,
        }

    def edit(self, uri: str, content: str) -> dict[str, Any]:
        """Write the new text back through the backend, through the same scrubber as capture
        (a secret typed into the editor is not stored)."""
        from ovhooks.capture.scrub import clean_outbound
        from ovhooks.rules.limits import memory_size_problem
        from ovhooks.transport.errors import BackendError

        too_large = memory_size_problem(content.strip())
        if too_large:
            raise UserError(f"not saved: {too_large}")
        backend = self.backend()
        try:
            (uri,) = self.own_memories(backend, [uri], "edit")
            # The store's write creates a missing file: an edit from a stale tab would bring
            # a forgotten memory back. Creating one is ``remember``'s job.
            backend.read(uri, "full")
            cleaned = clean_outbound(content, self.settings)
            backend.write(uri, cleaned)
        except BackendError as exc:
            if exc.not_found:
                message = f"no such memory: {uri} (forgotten?); nothing was saved"
                raise UserError(message, 404) from exc
            raise UserError(_backend_words(exc), 502) from exc
        return {"uri": uri, "scrubbed": cleaned != content}

    def forget(self, uris: list[str], now: float) -> dict[str, Any]:
        """Forget ``uris`` (``trash.forget``). A URI with no memory is already forgotten (a
        second tab, a double click): the others are forgotten and it is listed in
        ``missing``; when none of them exists the answer is a 404 naming the first."""
        from ovhooks.transport.errors import BackendError
        from ovhooks.ui import trash

        backend = self.backend()
        try:
            uris = self.own_memories(backend, uris, "forget")
            done = trash.forget(backend, self.settings.state_dir, uris, now)
        except BackendError as exc:
            raise UserError(_backend_words(exc), 502) from exc
        if done["undo"] is None:
            raise UserError(f"no such memory: {done['missing'][0]} (forgotten already?)", 404)
        return done

    def undo(self, undo_id: str, now: float) -> dict[str, Any]:
        from ovhooks.transport.errors import BackendError
        from ovhooks.ui import trash

        try:
            return {"restored": trash.undo(self.backend(), self.settings.state_dir, undo_id, now)}
        except trash.TrashError as exc:
            raise UserError(str(exc), 410) from exc
        except BackendError as exc:
            raise UserError(_backend_words(exc), 502) from exc

    def forget_filter(
        self, scope: object, category: object, expect: int, now: float
    ) -> dict[str, Any]:
        """Forget every memory the list shows for this filter, if it still holds ``expect``.
        A scope or category the list does not know is a 400 (nothing forgotten): the
        listing would read an unknown scope as no filter at all, every memory."""
        from ovhooks.ui import memories

        problem = memories.filter_problem(scope, category)
        if problem:
            raise UserError(f"{problem}; nothing was forgotten")
        assert isinstance(scope, str) and isinstance(category, str)  # filter_problem's check
        if not scope and not category:
            raise UserError("choose a scope or a category first: bulk forget needs a filter")
        backend = self.backend()
        user = self.user(backend)
        first = memories.list_page(backend, self.peer, scope, category, 1, user)
        if category and category not in first.categories:
            raise UserError(
                f"unknown category {category!r}: no memory in this scope has it; "
                "nothing was forgotten"
            )
        if first.total != expect:
            raise UserError(
                f"the filter now matches {first.total} memories, not {expect}: reload", 409
            )
        uris = [m.uri for m in first.items]
        for number in range(2, first.pages + 1):
            page = memories.list_page(backend, self.peer, scope, category, number, user)
            uris.extend(m.uri for m in page.items)
        return self.forget(uris, now)

    # --- recall ---------------------------------------------------------------------------
    def why(self, prompt: str) -> Why:
        """What UserPromptSubmit would inject for ``prompt`` now, and why: the hook's own
        recall run with a trace (nothing is marked as shown to any session)."""
        import secrets

        from ovhooks.recall import recall_for_prompt
        from ovhooks.recall.trace import Trace, explain

        if len(prompt) > 20000:
            raise UserError("the prompt is over 20,000 characters")
        from ovhooks.ui.memories import readable_line

        trace = Trace()
        backend = self.backend()
        outcome = recall_for_prompt(
            prompt,
            recent_user_texts=(),
            session_key=f"ui-why-{secrets.token_hex(4)}",
            ov_session_id=None,
            backend=backend,
            settings=self.settings,
            now=time.time(),
            trace=trace,
        )
        rows = explain(trace)
        lines = {
            r.candidate.uri: readable_line(backend, r.candidate.uri, r.candidate.text) for r in rows
        }
        return Why(trace, rows, outcome.reason, lines)

    def log(self) -> dict[str, Any]:
        from ovhooks.ui import recall_log

        entries = recall_log.entries(self.settings.state_dir)
        per_memory = recall_log.per_memory(entries)
        stats = sorted(per_memory.items(), key=lambda kv: (-kv[1][0], kv[0]))[:50]
        return {
            "entries": list(reversed(entries[-LOG_ROWS:])),
            "stats": stats,
            "total": len(entries),
            "injected": sum(1 for e in entries if e["items"]),
            "latest": recall_log.latest(entries),
        }

    def log_since(self, since: float) -> dict[str, Any]:
        from ovhooks.ui import recall_log

        entries = recall_log.since(recall_log.entries(self.settings.state_dir), since)
        return {"entries": entries[-LOG_ROWS:]}

    def session_start_preview(self) -> str:
        """What the next SessionStart in this project injects: the real hook, dry-run."""
        from ovhooks.ui.preview import session_start_block

        return session_start_block(self.cwd)

    # --- sessions and health --------------------------------------------------------------
    def sessions(self) -> list[dict[str, Any]]:
        from ovhooks.ui.sessions import summaries

        return summaries(self.settings.state_dir)

    def session(self, key: str) -> dict[str, Any]:
        from ovhooks.ui.sessions import detail

        found = detail(self.settings, key, self.backend)
        if found is None:
            raise UserError(f"no session {key!r} in this state directory", 404)
        return found

    def health(self) -> dict[str, Any]:
        import os

        from ovhooks.commands.doctor.runner import result, run_checks

        checks = run_checks(self.settings, os.environ, self.cwd, self.backend)
        return {"doctor": result(self.settings, checks)}


def _backend_words(exc: Exception) -> str:
    from ovhooks.redact import describe_exception

    return f"the memory store refused: {describe_exception(exc)}"


def visible(text: str) -> str:
    """``text`` with every character that hides what it names (bidi overrides, zero-width
    and control characters: what ``rules.memory_uri`` refuses in a URI) shown as its code
    point, so a URI that reached the store another way cannot pass for another."""
    import unicodedata

    from ovhooks.rules.memory_uri import HIDING_CATEGORIES

    if text.isascii() and text.isprintable():
        return text
    return "".join(
        f"<U+{ord(ch):04X}>" if unicodedata.category(ch) in HIDING_CATEGORIES else ch for ch in text
    )


def evidence_of(candidate: object) -> dict[str, Any]:
    """The fusion's evidence for a candidate (lexical, semantic strength, decision, reason),
    where the decision gave one; {} otherwise."""
    found = getattr(candidate, "evidence", None)
    return dict(found) if isinstance(found, dict) else {}


def listing_json(listing: dict[str, Any]) -> dict[str, Any]:
    page = listing.get("page")
    found = listing.get("found")
    doc: dict[str, Any] = {"mode": listing["mode"], "peer": listing["peer"]}
    if page is not None:
        doc.update(
            total=page.total,
            complete=page.complete,
            page=page.number,
            pages=page.pages,
            categories=page.categories,
            items=[m.as_json() for m in page.items],
        )
    if found is not None:
        doc.update(why_json(found))
    return doc


def memory_json(found: dict[str, Any]) -> dict[str, Any]:
    return dict(found)


def why_json(found: Why) -> dict[str, Any]:
    return {
        "reason": found.reason,
        "error": found.error,
        "query": found.query,
        "block": found.block,
        "tokens": found.tokens,
        "min_confidence": found.min_confidence,
        "rows": [
            {
                "uri": r.candidate.uri,
                "category": r.candidate.category,
                "score": round(r.candidate.score, 4),
                "rank": round(r.candidate.rank, 4),
                "confidence": r.candidate.confidence,
                "decision": r.decision,
                "reason": r.reason,
                "position": r.position,
                "evidence": evidence_of(r.candidate),
                "text": r.candidate.text[:400],
                "line": found.lines.get(r.candidate.uri, ""),
            }
            for r in found.rows
        ],
    }
