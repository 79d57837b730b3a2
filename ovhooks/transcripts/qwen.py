"""Qwen Code chat recordings -> Turns (Qwen Code 0.24.4, ``hosts-wave4.md`` §2.5).

``~/.qwen/projects/<cwd slug>/chats/<sessionId>.jsonl`` is append-only JSONL, one record a
line: ``{uuid, parentUuid, sessionId, timestamp, type, subtype?, message?, systemPayload?}``.

- ``type: user`` with ``message.parts`` (Gemini-style): ``text`` parts are what the user
  typed; a text part that is a ``<qwen:…>`` block is a hook's context (ours included, also
  kept as ``systemPayload.hookContext``), never the user's;
- ``type: tool_result``: ``functionResponse`` parts, attached to their call;
- ``type: assistant``: ``text`` parts (``thought`` parts dropped) and ``functionCall`` parts;
- ``type: system`` (telemetry, attribution snapshots, slash commands' output): dropped.

Qwen also makes side calls (its managed auto-memory extractor) whose replies are recorded
only in telemetry, never as ``assistant`` records, so they are not captured.
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
HOOK_BLOCK_PREFIX = "<qwen:"


def _parts(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _user_text(parts: list[dict[str, Any]]) -> str:
    texts = [
        p["text"]
        for p in parts
        if isinstance(p.get("text"), str)
        and not p.get("thought")
        and not p["text"].lstrip().startswith(HOOK_BLOCK_PREFIX)
    ]
    return "\n\n".join(t for t in texts if t.strip())


def _response_text(response: dict[str, Any]) -> str:
    body = response.get("response")
    if isinstance(body, dict):
        body = body.get("output", body.get("error", body))
    text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    return text[:MAX_OUTPUT_CHARS]


def _add_assistant(builder: AssistantTurnBuilder, parts: list[dict[str, Any]]) -> None:
    for index, part in enumerate(parts):
        text = part.get("text")
        if isinstance(text, str) and text.strip() and not part.get("thought"):
            builder.texts.append(text)
        call = part.get("functionCall")
        if isinstance(call, dict):
            args = call.get("args")
            builder.add_call(
                str(call.get("name") or "tool"),
                args if isinstance(args, dict) else {"input": args},
                str(call.get("id") or f"{builder.uid}-call-{index}"),
            )


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in transcript order from (offset, record) pairs."""
    built: list[Turn | AssistantTurnBuilder] = []
    calls: dict[str, dict[str, Any]] = {}
    for _offset, record in records:
        uid = record.get("uuid")
        if not isinstance(uid, str) or not uid:
            continue
        raw_ts = record.get("timestamp")
        ts = raw_ts if isinstance(raw_ts, str) else None
        parts = _parts(record)
        if record.get("type") in ("user", "tool_result"):
            for part in parts:
                response = part.get("functionResponse")
                call = calls.get(str(response.get("id"))) if isinstance(response, dict) else None
                if isinstance(response, dict) and call is not None:
                    call["output"] = _response_text(response)
                    call["error"] = isinstance(response.get("response"), dict) and (
                        "error" in response["response"]
                    )
            text = _user_text(parts) if record.get("type") == "user" else ""
            if text:
                built.append(Turn("user", text, timestamp=ts, uid=uid))
        elif record.get("type") == "assistant":
            builder = AssistantTurnBuilder(uid, ts)
            _add_assistant(builder, parts)
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
