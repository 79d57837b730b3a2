"""Sessions as the viewer shows them: what each host session captured, queued and committed.

Read from the session documents the hooks keep (``StateStore``), the backend's view of the
session (its live messages, as sent: already scrubbed) and, on the local store, the memories
each session's commits produced.

A session document is read once into the shape the pages show (``_summary``): a field a hand
edit or another version left unreadable (a time of ``"yesterday"``, ``NaN`` or ``1e308``, a
count of ``"many"``) is ``None``, which the JSON API sends as ``null`` and a page shows as
"—"; the rest of that session, and every other session, shows as usual.
"""

from __future__ import annotations

from ovhooks.settings.readback import count, moment, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ovhooks.backend.base import Backend
    from ovhooks.settings.config import Settings
    from ovhooks.settings.layout import State

MESSAGE_TOKENS = 4000

# A failure kind -> what to do about it (the fixes doctor names for the same failures).
FIXES = {
    "unreachable": "start the OpenViking server, or check OPENVIKING_URL (`ovhooks doctor`)",
    "timeout": "the server is slow: check its load; OVHOOKS_REQUEST_TIMEOUT_S raises the limit",
    "unauthenticated": "set OPENVIKING_API_KEY to a key the server accepts",
    "permission_denied": "the key lacks rights for this user or account: use a user key",
    "invalid": "a record the server refused is set aside in outbox/dead/ (`ovhooks status`)",
}


def summaries(state_dir: str) -> list[dict[str, Any]]:
    from ovhooks.session.store import StateStore

    docs = StateStore(state_dir, reader=True).all()
    rows = [_summary(doc) for doc in docs]
    rows.sort(key=lambda r: -(r["last_activity_at"] or 0.0))
    return rows


def _summary(doc: State) -> dict[str, Any]:
    queue = doc.get("queue") or []  # a list of entries: StateStore.load sees to it
    in_flight = sum(1 for e in queue if isinstance(e, dict) and e.get("inflight"))
    error = doc.get("last_error")
    return {
        "key": text(doc.get("key")),
        "host": text(doc.get("host")),
        "cwd": text(doc.get("cwd")),
        "peer": text(doc.get("peer")),
        "ov_session_id": text(doc.get("ov_session_id")),
        "last_activity_at": moment(doc.get("last_activity_at")) or moment(doc.get("created_at")),
        "turns_captured": count(doc.get("turns_captured", 0)),
        "messages_sent": count(doc.get("messages_sent", 0)),
        "queued": len(queue),
        "in_flight": in_flight,
        "commit_count": count(doc.get("commit_count", 0)),
        "last_commit_at": moment(doc.get("last_commit_at")),
        "ended": bool(doc.get("ended")),
        "extraction": _extraction(doc.get("last_extraction")),
        "error": _failure(error) if isinstance(error, dict) else None,
        "outage": _outage(doc.get("outage")),
    }


def _outage(outage: object) -> dict[str, float | None] | None:
    if not isinstance(outage, dict):
        return None
    return {k: moment(outage.get(k)) for k in ("since", "last_failure_at")}


def _extraction(outcome: object) -> dict[str, Any]:
    """The newest commit's extraction, both keys always present (the templates are strict): a
    session with no commit yet, the usual case while it runs, has neither."""
    if not isinstance(outcome, dict):
        outcome = {}
    status, memories = outcome.get("status"), outcome.get("memories")
    return {"status": text(status) or None, "memories": count(memories)}


def _failure(error: dict[str, Any]) -> dict[str, Any]:
    """The session's last write failure in plain words, with what to do about it."""
    message = str(error.get("error") or "failed")
    status = error.get("status")
    low = message.lower()
    if status in (401,):
        kind = "unauthenticated"
    elif status in (403,):
        kind = "permission_denied"
    elif isinstance(status, int) and 400 <= status < 500:
        kind = "invalid"
    elif "timed out" in low or "timeout" in low:
        kind = "timeout"
    elif status is None:
        kind = "unreachable"
    else:
        kind = "server"
    return {
        "kind": kind,
        "message": message,
        "at": moment(error.get("at")),
        "queued": count(error.get("queued")),
        "fix": FIXES.get(kind, "the server failed: its log says why; `ovhooks doctor` checks it"),
    }


def detail(
    settings: Settings, key: str, backend_factory: Callable[[], Backend]
) -> dict[str, Any] | None:
    from ovhooks.session.store import StateStore
    from ovhooks.transport.errors import BackendError

    if not key or "/" in key or key.startswith("."):
        return None
    doc = StateStore(settings.state_dir, reader=True).load(key)
    if doc is None:
        return None
    summary = _summary(doc)
    session_id = summary["ov_session_id"] or key
    backend = backend_factory()
    messages: list[dict[str, Any]] = []
    overview = ""
    problem = ""
    try:
        context = backend.session_context(session_id, MESSAGE_TOKENS)
        messages = [m for m in context.get("messages") or [] if isinstance(m, dict)]
        overview = str(context.get("latest_archive_overview") or "")
    except BackendError as exc:
        if not exc.not_found:
            from ovhooks.redact import describe_exception

            problem = describe_exception(exc)
    return {
        "session": summary,
        "messages": [_message(m) for m in messages],
        "overview": overview,
        "problem": problem,
        "produced": _produced(backend, session_id),
        "queue": [_entry(dict(e)) for e in doc.get("queue") or [] if isinstance(e, dict)],
    }


def _message(message: dict[str, Any]) -> dict[str, str]:
    parts = message.get("parts")
    texts = []
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
    content = message.get("content")
    if not texts and isinstance(content, str):
        texts.append(content)
    return {"role": str(message.get("role") or ""), "text": "\n".join(texts)[:4000]}


def _entry(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "seq": count(entry.get("seq")),
        "op": text(entry.get("op", "append")),
        "messages": count(entry.get("count", 0)),
        "sent": count(entry.get("sent", 0)),
        "in_flight": bool(entry.get("inflight")),
        "created_at": moment(entry.get("created_at")),
    }


def _produced(backend: Backend, session_id: str) -> list[str]:
    """Memories this session's commits wrote (the local store records the session)."""
    from ovhooks.backend.local import LocalBackend

    if not isinstance(backend, LocalBackend):
        return []
    rows = (
        backend.db()
        .execute("SELECT uri FROM memories WHERE source = ? ORDER BY created_at", (session_id,))
        .fetchall()
    )
    return [str(r[0]) for r in rows]
