"""An OpenAI chat-completions stub for driving the real Pi and OpenCode CLIs offline.

Both hosts reach a custom provider through ``POST <baseURL>/chat/completions`` with
``stream: true`` (``shared/spec/hosts-more.md`` §2.6, §3.5). The stub answers every request
with a streamed reply and records it, so tests assert on what the model received:

- ``RUNSHELL`` in the newest user text: a ``bash`` tool call (``echo hello-from-shell``);
- a tool result as the last message: ``STUB-AFTER-TOOL #n``;
- a host's title or summary request (``system`` asks for a title / summary): short text;
- anything else: ``STUB-REPLY #n``.

Usage reports the stub's ``prompt_tokens`` attribute (a test raises it to make a host
compact).
"""

from __future__ import annotations

import json
import time
from typing import Any

from tests.support.model_stub import RecordedRequest, RecordingServer, StubResponse

SHELL_COMMAND = "echo hello-from-shell"
TITLE_MARKERS = ("generate a title", "title generator", "short title")
SUMMARY_MARKERS = ("summarize", "summary of the conversation", "context checkpoint")


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text")
        )
    return ""


def user_texts(body: dict[str, Any]) -> list[str]:
    """The text of every ``user`` message of one chat request, in order."""
    return [
        _content_text(m.get("content"))
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") == "user"
    ]


def system_texts(body: dict[str, Any]) -> list[str]:
    """The text of every ``system``/``developer`` message (where injected context may land)."""
    return [
        _content_text(m.get("content"))
        for m in body.get("messages") or []
        if isinstance(m, dict) and m.get("role") in ("system", "developer")
    ]


def all_text(body: dict[str, Any]) -> str:
    """Every message text of one request, joined: where a recalled memory must appear."""
    return "\n".join(
        _content_text(m.get("content")) for m in body.get("messages") or [] if isinstance(m, dict)
    )


def text_from_prompt(body: dict[str, Any], prompt: str) -> str:
    """The text of the last user message that starts with ``prompt`` and of every message
    after it: where the shims put memory (after the prompt, stored with the turn)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        text = _content_text(message.get("content")).strip()
        if message.get("role") == "user" and text.startswith(prompt.strip()):
            return "\n".join(_content_text(m.get("content")) for m in messages[at:])
    return ""


def _newest_prompt(messages: list[dict[str, Any]]) -> str:
    prompt = ""
    for message in reversed(messages):
        if message.get("role") != "user":
            break
        prompt = _content_text(message.get("content"))
    return prompt


def turn_kind(body: dict[str, Any]) -> str:
    """``tool_result``, ``title``, ``summary``, ``shell`` or ``text`` for one request."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if messages and messages[-1].get("role") == "tool":
        return "tool_result"
    system = "\n".join(system_texts(body)).lower()
    if any(marker in system for marker in TITLE_MARKERS):
        return "title"
    last_user = (user_texts(body) or [""])[-1]
    if any(marker in last_user.lower() for marker in SUMMARY_MARKERS):
        return "summary"
    # The newest turn's prompt: its first user message (a shim stores memory after the prompt,
    # Pi as a user-role custom message), so the prompt's RUNSHELL counts and a memory's not.
    if "RUNSHELL" in _newest_prompt(messages) and body.get("tools"):
        return "shell"
    return "text"


def _chunk(number: int, model: str, delta: dict[str, Any], finish: str | None) -> bytes:
    doc = {
        "id": f"chatcmpl-stub-{number}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(doc)}\n\n".encode()


class ChatStub(RecordingServer):
    """``POST /v1/chat/completions`` (streamed or not) and ``GET /v1/models``."""

    def __init__(self, port: int = 0, log_dir: str | None = None) -> None:
        super().__init__(port, log_dir)
        self.replies: dict[int, str] = {}
        self.prompt_tokens = 40
        # prompt_tokens reported by the next turn replies, in order, before prompt_tokens:
        # [100000] makes a host with a small context limit compact once
        self.token_plan: list[int] = []

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    def turn_requests(self) -> list[RecordedRequest]:
        return self.requests_to("/v1/chat/completions")

    def handle(self, request: RecordedRequest) -> StubResponse:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "GET" and path == "/v1/models":
            return StubResponse(200, {"object": "list", "data": [{"id": "stub-model"}]})
        if request.method == "POST" and path == "/v1/chat/completions":
            body = request.body if isinstance(request.body, dict) else {}
            kind = turn_kind(body)
            with self._lock:
                self.replies[request.number] = kind
            return self._answer(request.number, kind, body)
        return super().handle(request)

    def _text(self, number: int, kind: str) -> str:
        return {
            "title": "Stub title",
            "summary": f"STUB-SUMMARY #{number}",
            "tool_result": f"STUB-AFTER-TOOL #{number}",
        }.get(kind, f"STUB-REPLY #{number}")

    def _answer(self, number: int, kind: str, body: dict[str, Any]) -> StubResponse:
        model = str(body.get("model") or "stub-model")
        with self._lock:
            tokens = self.token_plan.pop(0) if self.token_plan and kind == "text" else None
        prompt_tokens = self.prompt_tokens if tokens is None else tokens
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 10,
            "total_tokens": prompt_tokens + 10,
        }
        if kind == "shell":
            call = {
                "index": 0,
                "id": f"call_stub_{number}",
                "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": SHELL_COMMAND})},
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": self._text(number, kind)}
            finish = "stop"
        if not body.get("stream"):
            return StubResponse(
                200,
                {
                    "id": f"chatcmpl-stub-{number}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
            )
        frames = [_chunk(number, model, {"role": "assistant", **_delta(message)}, None)]
        frames.append(_chunk(number, model, {}, finish))
        usage_doc = {
            "id": f"chatcmpl-stub-{number}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "choices": [],
            "usage": usage,
        }
        frames.append(f"data: {json.dumps(usage_doc)}\n\n".encode())
        frames.append(b"data: [DONE]\n\n")
        return StubResponse(200, sse_frames=frames)


def _delta(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("tool_calls"):
        return {"content": None, "tool_calls": message["tool_calls"]}
    return {"content": message["content"]}
