"""A stub of the Gemini API for driving the real Gemini CLI offline.

Gemini CLI (``@google/genai``, API version ``v1beta``) talks to ``GOOGLE_GEMINI_BASE_URL``:

- ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``: the turns, answered as
  ``data: <GenerateContentResponse>`` frames separated by a blank line (no ``[DONE]``);
- ``POST /v1beta/models/<model>:generateContent``: side calls (the compression summary and its
  check, session summaries), answered with one JSON response;
- ``POST /v1beta/models/<model>:countTokens``: ``{"totalTokens": 100}``.

Every ``/v1beta`` request is recorded (``req-NNN-*.json`` under ``log_dir`` too), so tests
assert on what the model received. The scripted behaviour keys on words in the newest user
text of a turn request:

- ``RUNSHELL``: call ``run_shell_command`` (``echo hello-from-shell``);
- ``READVIKING``: call ``read_file`` on a ``viking://`` URI (ovhooks' guard denies it);
- ``BIGTOKENS``: report :data:`BIG_PROMPT_TOKENS` prompt tokens, over half of the model's
  1,048,576-token limit, so the next model call of the same process compresses the history;
- a tool result: a text reply; anything else: ``STUB-REPLY #n``.

Which branch answered each request is kept in :attr:`GeminiStub.replies`.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.model_stub import RecordedRequest, RecordingServer, StubResponse

SHELL_COMMAND = "echo hello-from-shell"
VIKING_URI = "viking://user/default/memories/preferences/indentation.md"
BIG_PROMPT_TOKENS = 600_000
SMALL_PROMPT_TOKENS = 40
# Gemini CLI's compression prompts (0.61): the summary request and its self-check.
COMPRESSION_MARKERS = ("<state_snapshot>",)


def _parts(content: Any) -> list[dict[str, Any]]:
    if not isinstance(content, dict):
        return []
    parts = content.get("parts")
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def user_texts(body: dict[str, Any]) -> list[str]:
    """Every text part of every ``user`` content of a request body, in order."""
    return [
        str(part["text"])
        for content in body.get("contents") or []
        if isinstance(content, dict) and content.get("role") == "user"
        for part in _parts(content)
        if isinstance(part.get("text"), str)
    ]


def hook_context_texts(body: dict[str, Any]) -> list[str]:
    """The parts where Gemini put hooks' additionalContext (``<hook_context>…``)."""
    return [text for text in user_texts(body) if "<hook_context>" in text]


def turn_kind(body: dict[str, Any]) -> tuple[str, str]:
    """(kind, newest user text): ``tool_result``, ``compaction``, ``shell``, ``viking`` or
    ``text``."""
    contents = [c for c in body.get("contents") or [] if isinstance(c, dict)]
    for content in reversed(contents):
        if content.get("role") != "user":
            continue
        parts = _parts(content)
        if any("functionResponse" in p for p in parts):
            return "tool_result", ""
        text = "\n".join(str(p.get("text", "")) for p in parts)
        if any(marker in text for marker in COMPRESSION_MARKERS):
            return "compaction", text
        if "RUNSHELL" in text:
            return "shell", text
        if "READVIKING" in text:
            return "viking", text
        return "text", text
    return "text", ""


def _response(parts: list[dict[str, Any]], prompt_tokens: int) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": 10,
            "totalTokenCount": prompt_tokens + 10,
        },
    }


class GeminiStub(RecordingServer):
    """``/v1beta/models/*`` for Gemini CLI."""

    def __init__(self, port: int = 0, log_dir: str | None = None) -> None:
        super().__init__(port, log_dir)
        self.replies: dict[int, str] = {}

    def should_record(self, request: RecordedRequest) -> bool:
        return request.path.startswith("/v1beta/")

    def turn_requests(self) -> list[RecordedRequest]:
        """The streamed turn requests (not side calls)."""
        return [r for r in self.requests_to("/v1beta/") if ":streamGenerateContent" in r.path]

    def handle(self, request: RecordedRequest) -> StubResponse:
        path = request.path.split("?", 1)[0]
        if request.method != "POST" or not path.startswith("/v1beta/models/"):
            return super().handle(request)
        method = path.rsplit(":", 1)[-1]
        if method == "countTokens":
            return StubResponse(200, {"totalTokens": 100})
        body = request.body if isinstance(request.body, dict) else {}
        kind, text = turn_kind(body)
        with self._lock:
            self.replies[request.number] = kind
        tokens = BIG_PROMPT_TOKENS if "BIGTOKENS" in text else SMALL_PROMPT_TOKENS
        response = _response(self._parts(request.number, kind), tokens)
        if method == "streamGenerateContent":
            frame = b"data: " + json.dumps(response).encode() + b"\n\n"
            return StubResponse(200, sse_frames=[frame])
        return StubResponse(200, response)

    @staticmethod
    def _parts(number: int, kind: str) -> list[dict[str, Any]]:
        if kind == "shell":
            call = {"name": "run_shell_command", "args": {"command": SHELL_COMMAND}}
            return [{"functionCall": call}]
        if kind == "viking":
            return [{"functionCall": {"name": "read_file", "args": {"file_path": VIKING_URI}}}]
        if kind == "compaction":
            return [{"text": f"<state_snapshot>STUB-COMPRESS-SUMMARY #{number}</state_snapshot>"}]
        return [{"text": f"STUB-REPLY #{number}"}]
