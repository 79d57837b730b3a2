"""Factory Droid session files -> Turns (droid 0.225.2, ``hosts-wave4.md`` §3.6).

``~/.factory/sessions/<cwd slug>/<sessionId>.jsonl`` is append-only JSONL: a
``session_start`` header, then ``{"type":"message","id","parentId","timestamp","message":
{"role","content":[…]}}`` records whose content is Anthropic blocks (``text``, ``tool_use``,
``tool_result``), and ``agent_turn_outcome`` markers.

A user record is the user's only when it has no ``visibility``: Droid records each hook run as
a ``user_only`` message (``hookEventName``, its stdout) and the context it gives the model
(system reminders, a hook's additionalContext, ours included) as ``llm_only`` messages.
``tool_result`` blocks are attached to their call. Droid's Stop payload carries no reply, so
this file is where capture reads it.
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


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict)]
        content = "\n".join(t for t in texts if isinstance(t, str))
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return text[:MAX_OUTPUT_CHARS]


def _assistant(uid: str, ts: str | None, blocks: list[dict[str, Any]]) -> AssistantTurnBuilder:
    builder = AssistantTurnBuilder(uid, ts)
    for index, block in enumerate(blocks):
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str) and text.strip():
            builder.texts.append(text)
        elif block.get("type") == "tool_use":
            args = block.get("input")
            builder.add_call(
                str(block.get("name") or "tool"),
                args if isinstance(args, dict) else {"input": args},
                str(block.get("id") or f"{uid}-call-{index}"),
            )
    return builder


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in transcript order from (offset, record) pairs."""
    built: list[Turn | AssistantTurnBuilder] = []
    calls: dict[str, dict[str, Any]] = {}
    for _offset, record in records:
        message = record.get("message")
        uid = record.get("id")
        if record.get("type") != "message" or not isinstance(message, dict):
            continue
        if not isinstance(uid, str) or not uid or "visibility" in message:
            continue  # hook runs and the context Droid gives the model: never the user's
        raw_ts = record.get("timestamp")
        ts = raw_ts if isinstance(raw_ts, str) else None
        blocks = _blocks(message)
        if message.get("role") == "user":
            for block in blocks:
                call = calls.get(str(block.get("tool_use_id") or ""))
                if block.get("type") == "tool_result" and call is not None:
                    call["output"] = _result_text(block)
                    call["error"] = block.get("is_error") is True
            texts = [
                b["text"]
                for b in blocks
                if b.get("type") == "text" and isinstance(b.get("text"), str)
            ]
            text = "\n\n".join(t for t in texts if t.strip())
            if text:
                built.append(Turn("user", text, timestamp=ts, uid=uid))
        elif message.get("role") == "assistant":
            builder = _assistant(uid, ts, blocks)
            calls.update(builder.by_id)
            built.append(builder)
    return [
        item if isinstance(item, Turn) else item.finish()
        for item in built
        if isinstance(item, Turn) or not item.empty
    ]


def recent_user_texts(records: Iterable[dict[str, Any]], limit: int) -> list[str]:
    """The last ``limit`` user messages (oldest first), for the recall query."""
    texts = [t.text for t in records_to_turns((0, r) for r in records) if t.role == "user"]
    return texts[-limit:] if limit else []
