"""Gemini CLI chat recordings -> Turns (Gemini CLI 0.61, ``shared/spec/hosts-more.md`` §1.7).

The recording (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) is append-only JSONL:

- a header (``sessionId``, ``projectHash``, ``startTime``, ``kind``), written again into a new
  file each time a session is resumed;
- message records ``{id, timestamp, type, content, …}``, ``type`` one of ``user``, ``gemini``,
  ``info``, ``error``, ``warning``. A message is appended again under the same ``id`` when it
  changes (a ``gemini`` reply gains its ``toolCalls``): the last record of an id wins, at the
  place of its first;
- ``{"$rewindTo": id}``: that message and every later one are gone;
- ``{"$set": {…}}``: metadata. ``$set.messages`` replaces the whole list: Gemini writes it on
  resume (the history it loaded) and after compressing the history, where the list holds the
  summary, an acknowledgement and the current prompt again **under new ids**. Those lists are
  never conversation to capture: every message the user and the model exchanged was appended
  as its own record first.

Structurally non-conversational content is dropped here: ``info``/``error``/``warning``
records, the ``<session_context>`` message Gemini writes at the start, ``<hook_context>``
parts and prefixes (hooks' additionalContext, ours included; Gemini escapes their ``<``/``>``,
so capture's own strippers would not know them), ``functionResponse`` parts (tool results,
which also sit in the reply's ``toolCalls``), thoughts, and slash commands.

A reply's text and its tool calls become two turns (uids ``<id>`` and ``<id>#tools``): the
text may be recorded before the calls are added, and each part is then captured once.
"""

from __future__ import annotations

import json

from ovhooks.model import ToolUse, Turn

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

SESSION_CONTEXT = "<session_context>"
MAX_OUTPUT_CHARS = 4000  # a tool result kept with its call; capture compacts it further


# The blocks Gemini puts in front of a prompt for hook context (here, not in hosts/gemini.py:
# transcripts sit below hosts, and both read them).
HOOK_CONTEXT_OPEN = "<hook_context>"
HOOK_CONTEXT_CLOSE = "</hook_context>"


def strip_hook_context(text: str) -> str:
    """``text`` without the ``<hook_context>…</hook_context>`` blocks it starts with.

    Gemini escapes ``<`` and ``>`` inside a block, so the first closing tag ends it.
    """
    rest = text
    while rest.lstrip().startswith(HOOK_CONTEXT_OPEN):
        end = rest.find(HOOK_CONTEXT_CLOSE)
        if end < 0:
            return ""  # an unterminated block: nothing after it is the user's
        rest = rest[end + len(HOOK_CONTEXT_CLOSE) :]
    return rest.lstrip("\n") if rest is not text else text


def _text_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return []
    return [
        part["text"]
        for part in content
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
    ]


def _is_slash_command(text: str) -> bool:
    """``/compress``, ``/memory add …``: a command to Gemini CLI, not a message (``/usr/bin``
    is a path: a second ``/`` in the first word)."""
    first = text.split(maxsplit=1)[0] if text.strip() else ""
    return first.startswith("/") and len(first) > 1 and "/" not in first[1:]


def user_text(content: object) -> str:
    """What the user wrote in a ``user`` record: injected and host-written parts removed."""
    texts = []
    for part in _text_parts(content):
        stripped = part.lstrip()
        if stripped.startswith(SESSION_CONTEXT):
            return ""  # the environment block Gemini writes at a session's start
        text = strip_hook_context(stripped) if stripped.startswith(HOOK_CONTEXT_OPEN) else part
        if text.strip():
            texts.append(text)
    joined = "\n\n".join(texts)
    return "" if _is_slash_command(joined) else joined


def _result_text(result: object) -> str | None:
    """A tool call's result (``functionResponse`` parts) as text."""
    if isinstance(result, str):
        return result[:MAX_OUTPUT_CHARS]
    if not isinstance(result, list):
        return None
    texts = []
    for part in result:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("output", body.get("error", body))
            texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts)[:MAX_OUTPUT_CHARS] if texts else None


def _tool_uses(calls: object) -> tuple[ToolUse, ...]:
    if not isinstance(calls, list):
        return ()
    out = []
    for index, call in enumerate(calls):
        if not isinstance(call, dict):
            continue
        args = call.get("args")
        status = call.get("status")
        out.append(
            ToolUse(
                str(call.get("name") or "tool"),
                args if isinstance(args, dict) else {},
                str(call.get("id") or f"call-{index}"),
                output=_result_text(call.get("result")),
                is_error=isinstance(status, str) and status not in ("success", ""),
            )
        )
    return tuple(out)


def latest_messages(records: Iterable[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The message records in order, the last version of each id, rewinds applied."""
    order: list[str] = []
    latest: dict[str, dict[str, Any]] = {}
    for _offset, record in records:
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            if rewind in latest:
                cut = order.index(rewind)
                for gone in order[cut:]:
                    del latest[gone]
                del order[cut:]
            continue
        message_id = record.get("id")
        if not isinstance(message_id, str) or not message_id or "type" not in record:
            continue  # the header, $set metadata, or not a message at all
        if message_id not in latest:
            order.append(message_id)
        latest[message_id] = record
    return [latest[message_id] for message_id in order]


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in transcript order from (offset, record) pairs."""
    turns: list[Turn] = []
    for record in latest_messages(records):
        uid = str(record["id"])
        raw_ts = record.get("timestamp")
        ts = raw_ts if isinstance(raw_ts, str) else None
        kind = record.get("type")
        if kind == "user":
            text = user_text(record.get("content"))
            if text:
                turns.append(Turn("user", text, timestamp=ts, uid=uid))
        elif kind == "gemini":
            text = "\n\n".join(t for t in _text_parts(record.get("content")) if t.strip())
            if text:
                turns.append(Turn("assistant", text, timestamp=ts, uid=uid))
            tools = _tool_uses(record.get("toolCalls"))
            if tools:
                turns.append(Turn("assistant", "", tools, timestamp=ts, uid=f"{uid}#tools"))
    return turns


def recent_user_texts(records: Iterable[dict[str, Any]], limit: int) -> list[str]:
    """The last ``limit`` user messages (oldest first), for the recall query."""
    pairs = ((0, r) for r in records)
    texts = [t.text for t in records_to_turns(pairs) if t.role == "user"]
    return texts[-limit:] if limit else []
