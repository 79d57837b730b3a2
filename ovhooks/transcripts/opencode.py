"""OpenCode's SQLite store -> Turns (OpenCode 1.18, ``shared/spec/hosts-more.md`` §3.4).

OpenCode keeps every session in one SQLite database (WAL): ``message`` rows (``id``,
``session_id``, ``data`` JSON with ``role``, ``time.completed``, ``summary``…) and ``part`` rows
(``data`` JSON: ``text``, ``tool``, ``reasoning``, ``step-start``…). The database is opened
read-only (``mode=ro``) and never written. Message ids grow with time (``msg_<time><seq>``), so
the cursor is the id of the last message captured: each read takes the messages after it, at
most ``MAX_MESSAGES`` and ``MAX_PART_BYTES`` of parts, and stops before an assistant message
that is not complete yet (the next read takes it whole).

Dropped by shape: ``synthetic`` text parts (context a plugin added, ovhooks' own included, and
OpenCode's own notes), ``ignored`` parts, reasoning, step markers, compaction requests and the
summary a compaction writes (``summary: true`` or ``mode: "compaction"``). Tool parts are
attached to the assistant turn that made them. An assistant reply spans several messages
(one per step around tool calls): they form one turn until the next user message.
"""

from __future__ import annotations

import json

from ovhooks.model import Turn
from ovhooks.transcripts.builder import AssistantTurnBuilder, TurnCollector
from ovhooks.transcripts.reader import ReadResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

MAX_MESSAGES = 400
MAX_PART_BYTES = 16 * 1024 * 1024
_BUSY_TIMEOUT_S = 2.0


def _connect(db_path: str) -> Any:
    """A read-only connection; raises ``OSError`` when the database cannot be opened."""
    import os
    import sqlite3
    import urllib.parse

    from ovhooks.transcripts.reader import open_regular

    os.close(open_regular(db_path))  # a FIFO or device is refused, never opened by sqlite
    uri = "file:" + urllib.parse.quote(db_path) + "?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True, timeout=_BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise OSError(f"cannot open {db_path[:200]!r}: {exc}") from None


def _json(text: object) -> dict[str, Any]:
    if not isinstance(text, str | bytes):
        return {}
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def read_new(db_path: str, session_id: str, cursor: dict[str, Any] | None) -> ReadResult:
    """The records of ``session_id`` after ``cursor``; raises ``OSError`` when unreadable.

    A record is ``{"id", "info", "parts"}`` for one message; the cursor keeps ``last_id``.
    """
    import sqlite3

    last_id = str((cursor or {}).get("last_id") or "")
    records: list[tuple[int, dict[str, Any]]] = []
    new_cursor = dict(cursor or {})
    bad = 0
    connection = _connect(db_path)
    try:
        rows = connection.execute(
            "SELECT id, data FROM message WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?",
            (session_id, last_id, MAX_MESSAGES),
        ).fetchall()
        budget = MAX_PART_BYTES
        for index, (message_id, data) in enumerate(rows):
            info = _json(data)
            if not info:
                bad += 1
            if _still_writing(info):
                break  # taken whole by the next read
            parts = []
            for (part_data,) in connection.execute(
                "SELECT data FROM part WHERE message_id = ? ORDER BY id", (message_id,)
            ):
                budget -= len(part_data) if isinstance(part_data, str | bytes) else 0
                parts.append(_json(part_data))
            if budget < 0 and records:
                break  # the rest next time
            records.append((index, {"id": str(message_id), "info": info, "parts": parts}))
            new_cursor["last_id"] = str(message_id)
    except sqlite3.Error as exc:
        raise OSError(f"cannot read {db_path[:200]!r}: {exc}") from None
    finally:
        connection.close()
    result = ReadResult(records, new_cursor, rewritten=False)
    result.bad_lines = bad
    return result


def _still_writing(info: dict[str, Any]) -> bool:
    """An assistant message with no completion time and no error: OpenCode is writing it."""
    if info.get("role") != "assistant" or info.get("error"):
        return False
    times = info.get("time")
    return not (isinstance(times, dict) and times.get("completed"))


def _user_text(parts: list[dict[str, Any]]) -> str:
    texts = [
        str(p.get("text") or "")
        for p in parts
        if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored")
    ]
    return "\n\n".join(t for t in texts if t.strip())


def _is_summary(info: dict[str, Any], parts: list[dict[str, Any]]) -> bool:
    if info.get("summary") is True or info.get("mode") == "compaction":
        return True
    return any(p.get("type") == "compaction" for p in parts)


def _add_assistant_parts(turn: AssistantTurnBuilder, parts: list[dict[str, Any]]) -> None:
    for part in parts:
        kind = part.get("type")
        if kind == "text" and not part.get("synthetic") and isinstance(part.get("text"), str):
            if part["text"].strip():
                turn.texts.append(part["text"])
        elif kind == "tool":
            raw_state = part.get("state")
            state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
            tool_input = state.get("input")
            call = turn.add_call(
                str(part.get("tool") or "tool"),
                tool_input if isinstance(tool_input, dict) else {},
                str(part.get("callID") or part.get("id") or ""),
            )
            if state.get("status") == "error":
                call["error"] = True
                call["output"] = str(state.get("error") or "")
            elif isinstance(state.get("output"), str):
                call["output"] = state["output"]


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in message order from (index, record) pairs."""
    collected = TurnCollector()
    for _index, record in records:
        raw_info = record.get("info")
        info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
        raw_parts = record.get("parts")
        parts = [p for p in raw_parts if isinstance(p, dict)] if isinstance(raw_parts, list) else []
        uid = f"oc-{record.get('id')}"
        times = info.get("time")
        ts = _iso(times.get("created") if isinstance(times, dict) else None)
        if _is_summary(info, parts):
            continue
        if info.get("role") == "user":
            text = _user_text(parts)
            if text:
                collected.user(text, ts, uid)
        elif info.get("role") == "assistant":
            _add_assistant_parts(collected.assistant(uid, ts), parts)
    return collected.finish()


def _iso(millis: object) -> str | None:
    if not isinstance(millis, int | float) or isinstance(millis, bool):
        return None
    import time

    try:
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(millis / 1000)) + "Z"
    except (OverflowError, OSError, ValueError):
        return None
