"""Codex rollout records -> Turns (Codex CLI 0.169, ``shared/spec/hosts-e2e.md`` §1.9).

Conversation lives in ``response_item`` records; ``event_msg`` items duplicate it and are
ignored. Structurally non-conversational items are dropped here, where the record shape says
so: developer messages (skills, permissions, and every hook's additionalContext, including
ours), user messages the harness wrote (``<environment_context>``: provenance ``harness``),
reasoning, and the compaction summary reply (``metadata.compaction_output``). Text-level
cleaning (injected blocks inside a real message, boilerplate, secrets) is capture's job.

Tool calls (``function_call``, ``custom_tool_call``, ``local_shell_call``,
``web_search_call``) and their outputs are attached to the assistant turn that made them, so
tool results are never attributed to the user.
"""

from __future__ import annotations

import json

from ovhooks.model import Turn
from ovhooks.transcripts.builder import AssistantTurnBuilder, TurnCollector

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def _block_texts(payload: dict[str, Any]) -> list[str]:
    content = payload.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    meta = payload.get("internal_chat_message_metadata_passthrough")
    provenance = meta.get("content_item_metadata") if isinstance(meta, dict) else None
    texts = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if isinstance(provenance, list) and index < len(provenance):
            item = provenance[index]
            prov = item.get("provenance") if isinstance(item, dict) else None
            if isinstance(prov, dict) and prov.get("type") == "harness":
                continue  # written by Codex itself, not the user
        if block.get("type") in ("input_text", "output_text", "text"):
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
    return texts


def _agent_name(raw: object, default: str) -> str:
    if isinstance(raw, dict):
        raw = raw.get("name") or raw.get("agent_path") or raw.get("path") or raw.get("id")
    name = " ".join(str(raw).split()) if isinstance(raw, str | int) and str(raw).strip() else ""
    return name[:120] or default


def _agent_message_text(payload: dict[str, Any]) -> str:
    """``[agent-message <author> -> <recipient>]`` and the message, or ``""`` when empty."""
    texts = _block_texts(payload)
    if not texts:
        for key in ("text", "message"):
            value = payload.get(key)
            if isinstance(value, str) and value.strip():
                texts = [value]
                break
    body = "\n".join(t for t in texts if t.strip())
    if not body.strip():
        return ""
    author = _agent_name(payload.get("author"), "subagent")
    recipient = _agent_name(payload.get("recipient"), "main")
    return f"[agent-message {author} -> {recipient}]\n{body}"


def _parse_arguments(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return {"input": raw}
        return value if isinstance(value, dict) else {"input": value}
    return {} if raw is None else {"input": raw}


_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _call(kind: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A tool call's name and arguments, for each kind of call record."""
    if kind == "function_call":
        return str(payload.get("name") or "tool"), _parse_arguments(payload.get("arguments"))
    if kind == "custom_tool_call":
        return str(payload.get("name") or "custom_tool"), _parse_arguments(payload.get("input"))
    raw_action = payload.get("action")
    action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
    if kind == "local_shell_call":
        return "local_shell", {"command": action.get("command")}
    return "web_search", {"query": action.get("query")}


def _attach_output(current: AssistantTurnBuilder | None, payload: dict[str, Any]) -> None:
    """Put a tool output on the call it answers, if that call is in the turn being built."""
    target = current.by_id.get(str(payload.get("call_id") or "")) if current is not None else None
    if target is None:
        return  # an output whose call was captured earlier; nothing to attach to
    output = payload.get("output")
    if isinstance(output, dict):
        target["error"] = output.get("success") is False
        output = output.get("content", json.dumps(output, ensure_ascii=False))
    target["output"] = output if isinstance(output, str) else json.dumps(output)


def records_to_turns(records: Iterable[tuple[int, dict[str, Any]]]) -> list[Turn]:
    """Turns in transcript order from (offset, record) pairs."""
    collected = TurnCollector()
    assistant = collected.assistant
    for offset, record in records:
        payload = record.get("payload")
        if record.get("type") != "response_item" or not isinstance(payload, dict):
            continue
        kind = payload.get("type")
        ts = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        uid = str(payload.get("id") or payload.get("call_id") or f"cx-off-{offset}")
        if kind == "message" and payload.get("role") == "user":
            texts = _block_texts(payload)
            if texts:
                collected.user("\n\n".join(texts), ts, uid)
        elif kind == "message" and payload.get("role") == "assistant":
            raw_meta = record.get("metadata")
            if isinstance(raw_meta, dict) and raw_meta.get("compaction_output"):
                continue  # the compaction summary, not something the agent said
            texts = _block_texts(payload)
            if texts:
                turn = assistant(uid, ts)
                turn.texts.extend(texts)
                if not turn.uid.startswith("msg"):
                    turn.uid = uid
        elif kind == "agent_message":
            # a sub-agent's message (Codex multi-agent): kept as assistant text naming who spoke
            text = _agent_message_text(payload)
            if text:
                assistant(uid, ts).texts.append(text)
        elif kind in _CALLS:
            call_id = str(payload.get("call_id") or payload.get("id") or f"call-{offset}")
            name, args = _call(str(kind), payload)
            assistant(f"turn-{uid}", ts).add_call(name, args, call_id)
        elif kind in _OUTPUTS:
            _attach_output(collected.current, payload)
    return collected.finish()


def recent_user_texts(records: Iterable[dict[str, Any]], limit: int) -> list[str]:
    """The last ``limit`` user messages (oldest first), for the recall query."""
    pairs = ((0, r) for r in records)
    texts = [t.text for t in records_to_turns(pairs) if t.role == "user"]
    return texts[-limit:] if limit else []
