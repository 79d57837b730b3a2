"""Stub model servers for driving the real Codex CLI and Claude Code offline.

- :class:`ResponsesStub`: the OpenAI Responses API as Codex 0.169 uses it (``GET /v1/models``,
  ``POST /v1/responses`` streamed as SSE). See ``shared/spec/hosts-e2e.md`` §1.2.
- :class:`MessagesStub`: the Anthropic Messages API as Claude Code 2.1.197 uses it
  (``POST /v1/messages`` streamed as SSE). See §2.2.

Both record every request (in memory, and as ``req-NNN-*.json`` under ``log_dir``) so tests
assert on what the model actually received. The scripted behaviour keys on words in the newest
user prompt:

- ``RUNSHELL``: call the shell tool (``echo hello-from-shell``).
- ``RUNAGENT`` (Claude): call the ``Agent`` tool, whose subagent prompt is ``SUBAGENT-PROMPT ...``.
- ``BIGTOKENS`` (Claude): report 190000 input tokens, so the next turn auto-compacts when the
  host's auto-compact env is set.
- a host's compaction prompt: answer with a summary.
- anything else: ``STUB-REPLY #n``.

Which branch answered each request is kept in :attr:`replies` (request number -> kind), so a
test can tell the compaction request or the subagent's request apart.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.model_stub import RecordedRequest, RecordingServer, StubResponse, sse_frame

SHELL_COMMAND = "echo hello-from-shell"
SHELL_OUTPUT = "hello-from-shell"
SUBAGENT_PROMPT = "SUBAGENT-PROMPT say hi"
CODEX_COMPACTION_PREFIX = "You are performing a CONTEXT CHECKPOINT COMPACTION"
CLAUDE_COMPACTION_MARKER = "Respond with TEXT ONLY. Do NOT call any tools."


def _texts(content: Any, text_types: tuple[str, ...]) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        str(block.get("text", ""))
        for block in content
        if isinstance(block, dict) and block.get("type") in text_types
    ]


# ---------------------------------------------------------------------------------------
# Codex: OpenAI Responses API
# ---------------------------------------------------------------------------------------


def codex_turn_kind(body: dict[str, Any]) -> tuple[str, str]:
    """(kind, newest user text) for one ``/v1/responses`` body.

    kind is ``tool_result`` (the last item answers our tool call), ``compaction``, ``shell``
    or ``text``. Developer messages (instructions, hook context) are skipped: they come after
    the user prompt.
    """
    for item in reversed(body.get("input") or []):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call_output":
            return "tool_result", ""
        if item.get("type") == "message" and item.get("role") == "user":
            text = "\n".join(_texts(item.get("content"), ("input_text",)))
            if text.startswith(CODEX_COMPACTION_PREFIX):
                return "compaction", text
            if "RUNSHELL" in text:
                return "shell", text
            return "text", text
    return "text", ""


def codex_user_texts(body: dict[str, Any]) -> list[str]:
    return [
        "\n".join(_texts(item.get("content"), ("input_text",)))
        for item in body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user"
    ]


def codex_developer_texts(body: dict[str, Any]) -> list[str]:
    """Texts of developer messages: instructions plus every hook's additionalContext."""
    return [
        text
        for item in body.get("input") or []
        if isinstance(item, dict)
        and item.get("type") == "message"
        and item.get("role") == "developer"
        for text in _texts(item.get("content"), ("input_text",))
    ]


class ResponsesStub(RecordingServer):
    """``/v1/responses`` SSE for Codex."""

    def __init__(self, port: int = 0, log_dir: str | None = None, total_tokens: int = 50) -> None:
        super().__init__(port, log_dir)
        self.total_tokens = total_tokens
        self.replies: dict[int, str] = {}

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    def turn_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/v1/responses")

    def handle(self, request: RecordedRequest) -> StubResponse:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "GET" and path == "/v1/models":
            return StubResponse(200, {"models": [], "data": [], "object": "list"})
        if request.method == "POST" and path == "/v1/responses":
            body = request.body if isinstance(request.body, dict) else {}
            kind, _ = codex_turn_kind(body)
            with self._lock:
                self.replies[request.number] = kind
            return StubResponse(200, sse_frames=self._frames(request.number, kind))
        return super().handle(request)

    def _frames(self, number: int, kind: str) -> list[bytes]:
        response_id = f"resp_{number}"
        item: dict[str, Any]
        if kind == "shell":
            item = {
                "type": "function_call",
                "id": f"fc_{number}",
                "call_id": f"call_{number}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": SHELL_COMMAND}),
            }
            added = {**item, "arguments": ""}
        else:
            text = (
                f"STUB-COMPACT-SUMMARY #{number}"
                if kind == "compaction"
                else f"STUB-REPLY #{number}"
            )
            item = {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{number}",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
            added = {**item, "content": []}
        frames = [
            sse_frame(
                "response.created", {"type": "response.created", "response": {"id": response_id}}
            ),
            sse_frame(
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": 0, "item": added},
            ),
        ]
        if item["type"] == "message":
            frames.append(
                sse_frame(
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": 0,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            )
        frames.append(
            sse_frame(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            )
        )
        usage = {
            "input_tokens": max(self.total_tokens - 10, 0),
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": self.total_tokens,
        }
        frames.append(
            sse_frame(
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {
                        "id": response_id,
                        "status": "completed",
                        "output": [item],
                        "usage": usage,
                    },
                },
            )
        )
        return frames


# ---------------------------------------------------------------------------------------
# Claude Code: Anthropic Messages API
# ---------------------------------------------------------------------------------------


def claude_turn_kind(body: dict[str, Any]) -> tuple[str, str]:
    """(kind, newest user text) for one ``/v1/messages`` body.

    kind is ``tool_result``, ``compaction``, ``shell``, ``agent`` or ``text``. ``system``-role
    entries inside ``messages`` (hook context, reminders) are skipped.
    """
    for message in reversed(body.get("messages") or []):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        text = "\n".join(_texts(content, ("text",)))
        # Claude merges the compaction instruction into the user message that carries the
        # last tool_result, so the instruction is checked first.
        if CLAUDE_COMPACTION_MARKER in text:
            return "compaction", text
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            return "tool_result", ""
        if "RUNAGENT" in text:
            return "agent", text
        if "RUNSHELL" in text:
            return "shell", text
        return "text", text
    return "text", ""


def claude_user_texts(body: dict[str, Any]) -> list[str]:
    return [
        "\n".join(_texts(m.get("content"), ("text",)))
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "user"
    ]


def claude_system_texts(body: dict[str, Any]) -> list[str]:
    """Texts of ``system`` entries inside ``messages``: where hook additionalContext goes."""
    return [
        text
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "system"
        for text in _texts(m.get("content"), ("text",))
    ]


class MessagesStub(RecordingServer):
    """``/v1/messages`` SSE for Claude Code."""

    def __init__(self, port: int = 0, log_dir: str | None = None) -> None:
        super().__init__(port, log_dir)
        self.replies: dict[int, str] = {}

    def turn_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/v1/messages")

    def handle(self, request: RecordedRequest) -> StubResponse:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "POST" and path == "/v1/messages":
            body = request.body if isinstance(request.body, dict) else {}
            kind, text = claude_turn_kind(body)
            if kind == "text" and SUBAGENT_PROMPT in text:
                kind = "subagent"
            with self._lock:
                self.replies[request.number] = kind
            big = "BIGTOKENS" in text and kind != "compaction"
            return StubResponse(
                200,
                sse_frames=self._frames(request.number, kind, str(body.get("model", "")), big),
            )
        if request.method == "POST" and path == "/v1/messages/count_tokens":
            return StubResponse(200, {"input_tokens": 100})
        return super().handle(request)

    def _frames(self, number: int, kind: str, model: str, big: bool) -> list[bytes]:
        block: dict[str, Any]
        delta: dict[str, Any]
        if kind in ("shell", "agent"):
            tool_input: dict[str, Any]
            if kind == "shell":
                name = "Bash"
                tool_input = {"command": SHELL_COMMAND, "description": "Print a greeting"}
            else:
                name = "Agent"
                tool_input = {
                    "description": "stub subagent",
                    "prompt": SUBAGENT_PROMPT,
                    "subagent_type": "general-purpose",
                }
            block = {"type": "tool_use", "id": f"toolu_stub_{number}", "name": name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}
            stop_reason = "tool_use"
        else:
            if kind == "compaction":
                text = (
                    f"<analysis>stub analysis</analysis>\n"
                    f"<summary>STUB-COMPACT-SUMMARY #{number}</summary>"
                )
            else:
                text = f"STUB-REPLY #{number}"
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": text}
            stop_reason = "end_turn"
        input_tokens = 190000 if big else 40
        return [
            sse_frame(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": f"msg_stub_{number}",
                        "type": "message",
                        "role": "assistant",
                        "model": model or "stub-model",
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": input_tokens,
                            "output_tokens": 1,
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 0,
                        },
                    },
                },
            ),
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
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            ),
            sse_frame("message_stop", {"type": "message_stop"}),
        ]
