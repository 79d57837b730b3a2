"""Stub models that call ovhooks' MCP memory tools, for the real Codex and Claude Code CLIs.

A user prompt holding ``MCPCALL <tool> <json arguments>``, or ``MCPCALL @<key>`` for a call
the test put in the stub's ``scripted`` table (so the prompt, which the hooks capture, does
not carry the arguments), makes the stub answer with a call of that tool of the ``ovhooks``
server, in each host's own shape: for Codex a Responses-API
``function_call`` in the ``mcp__ovhooks`` namespace (spec mcp.md §1.4), for Claude Code a
``tool_use`` of ``mcp__ovhooks__<tool>`` (§2.3). The host runs the tool and sends its output
back in the next request, which the stub answers with plain text; every request is recorded,
so a test asserts on what the host passed back to the model.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.host_stubs import (
    MessagesStub,
    ResponsesStub,
    claude_turn_kind,
    codex_turn_kind,
)
from tests.support.model_stub import RecordedRequest, StubResponse, sse_frame

NAMESPACE = "mcp__ovhooks"
_CALL = re.compile(r"MCPCALL (\w+) (\{.*\})", re.S)
_SCRIPTED = re.compile(r"MCPCALL @([\w-]+)")
Call = tuple[str, dict[str, Any]]


def requested_call(text: str, scripted: dict[str, Call]) -> Call | None:
    """(tool, arguments) a prompt asks the stub to call, if any."""
    match = _CALL.search(text)
    if match:
        return match.group(1), json.loads(match.group(2))
    named = _SCRIPTED.search(text)
    return scripted[named.group(1)] if named else None


def codex_tool_outputs(body: dict[str, Any]) -> list[str]:
    """The outputs of tool calls Codex sent back in one request."""
    out = []
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            output = item.get("output")
            if isinstance(output, list):  # 0.169: input_text blocks, "Wall time ..." first
                output = "\n".join(str(b.get("text", "")) for b in output if isinstance(b, dict))
            out.append(output if isinstance(output, str) else json.dumps(output))
    return out


def codex_namespace_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Tool name -> definition of the ``mcp__ovhooks`` namespace Codex offered the model."""
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") == NAMESPACE:
            return {str(t.get("name")): t for t in tool.get("tools") or [] if isinstance(t, dict)}
    return {}


def claude_tool_results(body: dict[str, Any]) -> list[str]:
    """The texts of tool results Claude Code sent back in one request."""
    out = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, str):
                    out.append(inner)
                elif isinstance(inner, list):
                    out.append("\n".join(str(b.get("text", "")) for b in inner))
    return out


class CodexMcpStub(ResponsesStub):
    scripted: dict[str, Call]

    def handle(self, request: RecordedRequest) -> StubResponse:
        body = request.body if isinstance(request.body, dict) else {}
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "POST" and path == "/v1/responses":
            kind, text = codex_turn_kind(body)
            call = requested_call(text, getattr(self, "scripted", {})) if kind == "text" else None
            if call is not None:
                with self._lock:
                    self.replies[request.number] = "mcp_call"
                return StubResponse(200, sse_frames=self._call_frames(request.number, *call))
        return super().handle(request)

    def _call_frames(self, number: int, tool: str, arguments: dict[str, Any]) -> list[bytes]:
        item = {
            "type": "function_call",
            "id": f"fc_{number}",
            "call_id": f"call_{number}",
            "namespace": NAMESPACE,
            "name": tool,
            "arguments": json.dumps(arguments),
        }
        usage = {
            "input_tokens": 40,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 50,
        }
        response = {"id": f"resp_{number}", "status": "completed", "output": [item]}
        return [
            sse_frame(
                "response.created",
                {"type": "response.created", "response": {"id": f"resp_{number}"}},
            ),
            sse_frame(
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": {**item, "arguments": ""},
                },
            ),
            sse_frame(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            sse_frame(
                "response.completed",
                {"type": "response.completed", "response": {**response, "usage": usage}},
            ),
        ]


class ClaudeMcpStub(MessagesStub):
    scripted: dict[str, Call]

    def handle(self, request: RecordedRequest) -> StubResponse:
        body = request.body if isinstance(request.body, dict) else {}
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "POST" and path == "/v1/messages":
            kind, text = claude_turn_kind(body)
            call = requested_call(text, getattr(self, "scripted", {})) if kind == "text" else None
            if call is not None:
                with self._lock:
                    self.replies[request.number] = "mcp_call"
                frames = self._tool_frames(request.number, str(body.get("model", "")), *call)
                return StubResponse(200, sse_frames=frames)
        return super().handle(request)

    def _tool_frames(
        self, number: int, model: str, tool: str, arguments: dict[str, Any]
    ) -> list[bytes]:
        block = {
            "type": "tool_use",
            "id": f"toolu_mcp_{number}",
            "name": f"{NAMESPACE}__{tool}",
            "input": {},
        }
        delta = {"type": "input_json_delta", "partial_json": json.dumps(arguments)}
        message: dict[str, Any] = {
            "id": f"msg_stub_{number}",
            "type": "message",
            "role": "assistant",
            "model": model or "stub-model",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {
                "input_tokens": 40,
                "output_tokens": 1,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }
        return [
            sse_frame("message_start", {"type": "message_start", "message": message}),
            sse_frame(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": block},
            ),
            sse_frame(
                "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
            ),
            sse_frame("content_block_stop", {"type": "content_block_stop", "index": 0}),
            sse_frame(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            ),
            sse_frame("message_stop", {"type": "message_stop"}),
        ]
