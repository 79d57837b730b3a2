"""GitHub Copilot CLI session events -> Turns (Copilot CLI 1.0.102, ``hosts-wave4.md`` §1.7).

``$COPILOT_HOME/session-state/<sessionId>/events.jsonl`` is append-only JSONL, one event a
line: ``{type, data, id, timestamp, parentId}``. Conversation lives in three types:

- ``user.message``: ``data.content`` is what the user typed. ``data.transformedContent`` is
  what the model received (a ``<current_datetime>`` block before it, hooks' context in a
  ``<system_reminder>`` after it), so it is never read: injected context stays out by
  construction;
- ``assistant.message``: ``data.content`` (text, possibly empty) and ``data.toolRequests``
  (``{toolCallId, name, arguments}``); one record per model call, each its own turn;
- ``tool.execution_complete``: ``data.toolCallId``, ``data.success``, ``data.result.content``,
  attached to the call of an assistant turn read in the same batch.

Everything else (``session.*``, ``hook.*``, ``system.message``, ``assistant.turn_*``, usage
records) is not conversation. SessionStart's context is recorded only in its ``hook.end``.
"""

from __future__ import annotations

import json

from ovhooks.model import Turn
from ovhooks.transcripts.builder import AssistantTurnBuilder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

MAX_OUTPUT_CHARS = 4000  # a tool result kept with its call; capture compacts it further


def _timestamp(record: dict[str, Any]) -> str | None:
    value = record.get("timestamp")
    return value if isinstance(value, str) else None


def _assistant_turn(record: dict[str, Any], data: dict[str, Any]) -> AssistantTurnBuilder:
    turn = AssistantTurnBuilder(str(record.get("id") or ""), _timestamp(record))
    content = data.get("content")
    if isinstance(content, str) and content.strip():
        turn.texts.append(content)
    requests = data.get("toolRequests")
    for index, call in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(call, dict):
            continue
        args = call.get("arguments")
        turn.add_call(
            str(call.get("name") or "tool"),
            args if isinstance(args, dict) else {"input": args},
            str(call.get("toolCallId") or f"{record.get('id')}-call-{index}"),
        )
    return turn


def _result_text(data: dict[str, Any]) -> str:
    result = data.get("result")
    content = result.get("content") if isinstance(result, dict) else result
    if content is None:
        error = data.get("error")
        content = error.get("message") if isinstance(error, dict) else error
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return text[:MAX_OUTPUT_CHARS]


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in transcript order from (offset, record) pairs."""
    built: list[Turn | AssistantTurnBuilder] = []
    calls: dict[str, dict[str, Any]] = {}
    for _offset, record in records:
        data = record.get("data")
        if not isinstance(data, dict) or not isinstance(record.get("id"), str):
            continue
        kind = record.get("type")
        if kind == "user.message":
            text = data.get("content")
            if isinstance(text, str) and text.strip():
                built.append(Turn("user", text, timestamp=_timestamp(record), uid=record["id"]))
        elif kind == "assistant.message":
            turn = _assistant_turn(record, data)
            calls.update(turn.by_id)
            built.append(turn)
        elif kind == "tool.execution_complete":
            call = calls.get(str(data.get("toolCallId") or ""))
            if call is not None:  # its call was captured in an earlier batch otherwise
                call["output"] = _result_text(data)
                call["error"] = data.get("success") is False
    turns: list[Turn] = []
    for item in built:
        if isinstance(item, Turn):
            turns.append(item)
        elif not item.empty:
            turns.append(item.finish())
    return turns


def recent_user_texts(records: Iterable[dict[str, Any]], limit: int) -> list[str]:
    """The last ``limit`` user messages (oldest first), for the recall query."""
    texts = [t.text for t in records_to_turns((0, r) for r in records) if t.role == "user"]
    return texts[-limit:] if limit else []
