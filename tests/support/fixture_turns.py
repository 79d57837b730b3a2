"""Test-only transcript readers: host fixture JSONL records -> Turns for the capture tests.

Deliberately simple (the real readers live in ``ovhooks.transcripts``): Codex ``response_item``
user/assistant messages plus ``function_call``/``custom_tool_call`` and their outputs; Claude
user/assistant records, skipping ``isMeta``, ``isCompactSummary`` and attachments. With
``leak=True`` the structurally non-conversational records are NOT skipped but turned into user
turns, the way a careless reader would, to prove capture is robust to them; hook
``additionalContext`` is then wrapped as ovhooks wraps it and put inside the next user message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ovhooks.model import ToolUse, Turn


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _wrap(marker: str, source: str) -> str:
    return (
        f'<openviking-context source="{source}" format="digest">\n'
        f"OpenViking memory digest:\n- {marker}\n</openviking-context>"
    )


def _texts(content: object, kinds: tuple[str, ...]) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str)
    ]


def codex_turns(records: list[dict[str, Any]], *, leak: bool = False) -> list[Turn]:
    outputs: dict[str, str] = {}
    for r in records:
        p = r.get("payload") or {}
        if r.get("type") == "response_item" and p.get("type") in (
            "function_call_output",
            "custom_tool_call_output",
        ):
            out = p.get("output")
            outputs[str(p.get("call_id"))] = out if isinstance(out, str) else json.dumps(out)
    turns: list[Turn] = []
    pending_context: list[str] = []
    for r in records:
        p = r.get("payload") or {}
        ts = r.get("timestamp")
        if r.get("type") == "compacted" and leak:
            turns.append(Turn("user", str(p.get("message") or ""), timestamp=ts, uid="compacted"))
            continue
        if r.get("type") != "response_item":
            continue
        kind = p.get("type")
        uid = str(p.get("id") or p.get("call_id") or "")
        if kind == "message":
            text = "\n\n".join(_texts(p.get("content"), ("input_text", "output_text", "text")))
            role = p.get("role")
            if role == "developer":
                if leak:
                    # hook context as ovhooks would wrap it, leaking into the next user message
                    pending_context.append(_wrap(text, "codex-developer"))
                continue
            if role == "user" and pending_context:
                text = "\n".join(pending_context) + "\n" + text
                pending_context = []
            if role in ("user", "assistant"):
                turns.append(Turn(role, text, timestamp=ts, uid=uid))
        elif kind in ("function_call", "custom_tool_call"):
            raw = p.get("arguments") if kind == "function_call" else p.get("input")
            try:
                args = json.loads(raw) if isinstance(raw, str) else dict(raw or {})
            except ValueError:
                args = {"input": raw}
            if not isinstance(args, dict):
                args = {"input": args}
            call_id = str(p.get("call_id") or "")
            tool = ToolUse(str(p.get("name")), args, call_id, output=outputs.get(call_id))
            turns.append(Turn("assistant", "", (tool,), timestamp=ts, uid=uid))
    return turns


def claude_turns(records: list[dict[str, Any]], *, leak: bool = False) -> list[Turn]:
    results: dict[str, tuple[str, bool]] = {}
    for r in records:
        content = (r.get("message") or {}).get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    body = block.get("content")
                    text = body if isinstance(body, str) else "\n".join(_texts(body, ("text",)))
                    results[str(block.get("tool_use_id"))] = (text, bool(block.get("is_error")))
    turns: list[Turn] = []
    pending_context: list[str] = []
    for r in records:
        kind = r.get("type")
        if kind == "attachment":
            att = r.get("attachment") or {}
            if leak and att.get("type") == "hook_additional_context":
                for item in att.get("content") or []:
                    pending_context.append(_wrap(str(item), str(att.get("hookEvent"))))
            continue
        if kind not in ("user", "assistant"):
            continue
        if (r.get("isMeta") or r.get("isCompactSummary")) and not leak:
            continue
        message = r.get("message") or {}
        content = message.get("content")
        ts = r.get("timestamp")
        uid = str(r.get("uuid") or "")
        if kind == "user":
            texts = _texts(content, ("text",))
            if not texts:
                continue  # tool results only: they belong to the assistant's tool call
            text = "\n".join(texts)
            if pending_context:
                # older Claude Code builds put hook context in a reminder inside the prompt
                text = (
                    "<system-reminder>\n" + "\n".join(pending_context) + "\n</system-reminder>\n"
                ) + text
                pending_context = []
            turns.append(Turn("user", text, timestamp=ts, uid=uid))
            continue
        texts = _texts(content, ("text",))
        tools = []
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call_id = str(block.get("id"))
                output, is_error = results.get(call_id, (None, False))
                tools.append(
                    ToolUse(
                        str(block.get("name")),
                        block.get("input") or {},
                        call_id,
                        output=output,
                        is_error=is_error,
                    )
                )
        if texts or tools:
            turns.append(Turn("assistant", "\n".join(texts), tuple(tools), timestamp=ts, uid=uid))
    return turns
